%flamepipe	1
S	82000000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	82199999999	1	1	0	1	cpu-clock:ppp	app	u	main
S	82200000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	82019999999	1	1	0	1	cpu-clock:ppp	app	u	main
S	82020000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	82999999999	1	1	0	1	cpu-clock:ppp	app	u	main
S	84000000000	1	1	0	1	cpu-clock:ppp	app	u	main
