%flamepipe	1
# a comment	with a tab
S	3000000000	1	1	0	1	cpu-clock:ppp	app	u	main
W	read	x.perf:7	something odd
I	read	lines=9	samples=3
Z	an unknown record

F	3	app;main
S	3500000000	1	1	0	1	cpu-clock:ppp	app	u	main
C	range	-	-
C	flush
S	not a sample
S	3990000000	1	1	0	1	cpu-clock:ppp	app	u	main
H	9	9	9
G	1	1
