kernel`bcache_workload_run\+0x[0-9a-f]+
  kernel`bcache_workload_run {24}\|
  kernel`bcache_workload_run {24}\|
inside bcache_workload_run: 1

 {14}kernel`bcache_workload_run\+0x[0-9a-f]+
return: 1

