S	3000000000	10	11	0	1	cpu-clock	my prog	u	main
S	3000000001	10	12	1	1	cpu-clock	my prog	u	main
S	3000000002	-1	42	0	1	cpu-clock	V8 WorkerThread	u	run
S	3000000003	7	7	0	1	cpu-clock	javac	u	Lcom/x/Y:.z(I)V
S	3000000004	-1	-1	0	1	cpu-clock	:-1	k	native_safe_halt
S	3000000005	0	0	1	1	cpu-clock	swapper	k	native_safe_halt
