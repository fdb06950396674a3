S	4000000000	10	10	0	1000000	cpu-clock	app	uu	main;work
S	4000000001	10	10	0	2000000	cpu-clock	app	uu	main;work
S	4000000002	10	10	0	0	cpu-clock	app	uu	main;work
S	4000000003	10	10	0	5	cpu-clock	app	uu	main;idle
S	4000000004	20	20	0	1000000000000000000	cpu-clock	big	u	huge
S	4000000005	20	20	0	1000000000000000000	cpu-clock	big	u	huge
S	4000000006	20	20	0	1000000000000000000	cpu-clock	big	u	huge
