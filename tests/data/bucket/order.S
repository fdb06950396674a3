S	10500000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	11000000000	1	1	0	1	cpu-clock:ppp	app	u	main
C	flush
S	9990000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	11000000000	1	1	0	1	cpu-clock:ppp	app	u	main
C	flush
S	7000000000	1	1	0	1	cpu-clock:ppp	app	u	main
S	8000000000	1	1	0	1	cpu-clock:ppp	app	u	main
