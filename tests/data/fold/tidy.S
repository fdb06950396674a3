S	1000000000	100	100	0	1	cpu-clock	prog	uu	main;compute(int, char const*)
S	1000000001	100	100	0	1	cpu-clock	prog	uu	main;std::vector<int>::push_back(int const&)
S	1000000002	100	100	0	1	cpu-clock	prog	uuu	main;net/http.(*Client).Do;runtime.(*mheap).alloc(0x1)
S	1000000003	100	100	0	1	cpu-clock	prog	uu	main;(anonymous namespace)::helper(int)
S	1000000004	100	100	0	1	cpu-clock	prog	uu	main;ns::(anonymous namespace)::f(int)
S	1000000005	100	100	0	1	cpu-clock	prog	uu	main;f(int)::(anonymous namespace)
S	1000000006	100	100	0	1	cpu-clock	prog	uu	main;RegExp:[&<>"']
S	1000000007	100	100	0	1	cpu-clock	prog	uuu	main;(foo)bar;leaf
S	1000000008	100	100	0	1	cpu-clock	prog	uu	main;outer->mid->inner(int)
S	1000000009	100	100	0	1	cpu-clock	prog	uu	main;tail->
S	1000000010	100	100	0	1	cpu-clock	prog	uu	main;already->b_[i]
S	1000000011	100	100	0	1	cpu-clock	prog	uxu	main;[unknown];[libc.so.6]
S	1000000012	100	100	0	1	cpu-clock	prog	uu	main;Foo::operator()(int)
S	1000000013	100	100	0	1	cpu-clock	prog	uu	main;compute(long)
S	1000000014	200	201	1	1	cpu-clock	java	jjjj	Interpreter;Lorg/mozilla/javascript/ContextFactory:.call(Lorg/mozilla/javascript/ContextAction:)Ljava/lang/Object:;LNoSlash.m;Ljava/lang/Thread:.run()V
S	1000000015	300	300	1	1	cpu-clock	notjava	uu	main;Lorg/x/Y:.m(I)V
S	1000000016	400	400	1	1	cpu-clock	prog		
