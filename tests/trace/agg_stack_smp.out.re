CPU 0: 5
CPU 1: 5


 {14}kernel`clock_timer_interrupt\+0x[0-9a-f]+
 {15}10
