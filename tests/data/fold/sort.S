S	6000000000	10	10	0	1	cpu-clock	app	uu	main;b_x
S	6000000001	10	10	0	1	cpu-clock	app	uu	main;é
S	6000000002	10	10	0	1	cpu-clock	app	uuu	main;b;c
S	6000000003	10	10	0	1	cpu-clock	app	uu	main;b
S	6000000004	10	10	0	1	cpu-clock	app	uu	main;Z
S	6000000005	10	10	0	1	cpu-clock	app	uu	main;B
S	6000000006	10	10	0	1	cpu-clock	app	uu	main;_
S	6000000007	10	10	0	1	cpu-clock	app2	u	x
S	6000000008	10	10	0	1	cpu-clock	app-1	u	x
S	6000000009	10	10	0	1	cpu-clock	App	u	x
S	6000000010	10	10	0	1	cpu-clock	app		
