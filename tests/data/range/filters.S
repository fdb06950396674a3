%flamepipe	1
G	50	10
S	10100000000	100	100	0	1	cpu-clock:ppp	bash	ku	do_syscall_64;main
S	10200000000	100	101	1	1	cpu-clock:ppp	bash	uu	main;readline
S	10300000000	200	200	0	1	cpu-clock:ppp	gzip	uu	main;deflate
S	10400000000	200	200	1	1	cpu-clock	Web Content	uuu	start;js::Run;js::Interpret
S	10500000000	300	300	1	1	page-faults	gzip	k	exc_page_fault
S	10600000000	-1	-1	0	1	cpu-clock:ppp	:-1		
S	10700000000	0	0	1	1	sched:sched_switch	swapper	kk	__schedule;finish_task_switch.isra.0
S	10800000000	200	200	0	1	cpu-clock:ppp	gzip	uu	main;deflate
