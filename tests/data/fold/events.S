S	5000000000	10	10	0	1	cpu-clock	app	uu	main;work
S	5000000001	10	10	0	1	page-faults	app	uu	main;alloc
S	5000000002	10	10	0	1	cpu-clock	app	uu	main;work
S	5000000003	10	10	0	1	-	app	uu	main;noevent
S	5000000004	10	10	0	1	task-clock	app	uu	main;other
S	5000000005	10	10	0	1	page-faults	app	uu	main;alloc
