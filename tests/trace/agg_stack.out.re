

 {14}kernel`bcache_workload_run\+0x[0-9a-f]+
 {14}kernel`[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+
 {16}5

 {14}kernel`bcache_workload_run\+0x[0-9a-f]+
  bcache_read {54}15
