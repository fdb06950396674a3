S	2000000000	10	10	0	1	cpu-clock	app	ukk	main;do_syscall_64;sys_read
S	2000000001	10	10	0	1	cpu-clock	app	ujj	main;Interpreter;LFoo:.bar_[j]
S	2000000002	10	10	0	1	cpu-clock	app	uui	main;caller;inlined_callee
S	2000000003	10	10	0	1	cpu-clock	app	uxu	main;[unknown];leaf
S	2000000004	10	10	0	1	cpu-clock	app	uk	main;kfunc->kinl
S	2000000005	10	10	0	1	cpu-clock	app	uj	main;jfunc->jinl->jinl2_[i]
