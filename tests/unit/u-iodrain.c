/* u-iodrain.c: a pump whose input stopped for backpressure starts reading
 * again however its output drains (fifo/fp_io.c).
 *
 * The bug this guards against: the input was restarted only from the
 * output's write watcher. A stage that flushes from its own timer (fp-fold's
 * snapshots) could write everything out itself; the write watcher was then
 * stopped, never ran, and the input stayed off for good: the whole chain
 * hung once pipes were big enough to take the whole buffer at once. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fp_error.h"
#include "fp_io.h"

#define INPUT_BYTES (4u << 20) /* several times FP_OUT_HIGH */
#define LINE_BYTES 100
#define WATCHDOG_S 20 /* a hang fails the test, not the suite */
#define STALL_S 0.3   /* nobody reads the output meanwhile */

struct state {
	struct fp_pump *p;
	int out_r;
	uint64_t got; /* bytes read here, during the stall */
	int stalled_input_seen;
	pid_t reader; /* reads the rest, reports its count */
	int count_w, out_w;
	ev_timer stall_w;
};

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	fp_out_write(&p->out, line, len);
	fp_out_char(&p->out, '\n');
}

static const struct fp_pump_ops ops = { .line = on_line };

static void drain(struct state *s)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(s->out_r, buf, sizeof buf)) > 0)
		s->got += (uint64_t)n;
	assert_true(n < 0 && errno == EAGAIN);
}

/* After the stall: empty the output the way a stage's own timer does, by
 * reading the pipe and calling fp_out_flush until nothing is left, so the
 * write watcher never gets to run. Then a reader process takes the rest. */
static void stall_over_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct state *s = w->data;
	struct fp_pump *p = s->p;

	s->stalled_input_seen = !ev_is_active(&p->in_w);
	while (p->out.len) {
		drain(s);
		fp_out_flush(&p->out);
	}
	s->reader = fork();
	if (s->reader == 0) {
		char buf[1 << 16], num[32];
		uint64_t n = 0;
		ssize_t r;

		close(s->out_w); /* or it never sees EOF */
		fcntl(s->out_r, F_SETFL, 0);
		while ((r = read(s->out_r, buf, sizeof buf)) > 0)
			n += (uint64_t)r;
		snprintf(num, sizeof num, "%llu", (unsigned long long)n);
		_exit(write(s->count_w, num, strlen(num)) > 0 ? 0 : 1);
	}
}

static void input_resumes_when_a_timer_flush_empties_the_output(void **unused)
{
	int in[2], out[2], count[2];
	struct fp_pump p;
	struct state s = { 0 };
	char num[32] = "";

	alarm(WATCHDOG_S);
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(count), 0);
	pid_t writer = fork();
	if (writer == 0) {
		char line[LINE_BYTES];

		close(in[0]);
		memset(line, 'x', sizeof line - 1);
		line[sizeof line - 1] = '\n';
		for (size_t i = 0; i < INPUT_BYTES / LINE_BYTES; i++)
			if (write(in[1], line, sizeof line) != (ssize_t)sizeof line)
				_exit(1);
		_exit(0);
	}
	close(in[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	s.out_r = out[0];
	s.count_w = count[1];
	s.out_w = out[1];
	s.p = &p;
	fp_pump_init(&p, EV_DEFAULT, in[0], out[1], &ops, &s, 0);
	ev_timer_init(&s.stall_w, stall_over_cb, STALL_S, 0.);
	s.stall_w.data = &s;
	ev_timer_start(EV_DEFAULT, &s.stall_w);

	assert_int_equal(fp_pump_run(&p), FP_EXIT_OK);
	close(out[1]); /* the reader sees EOF */
	close(count[1]);
	waitpid(writer, NULL, 0);
	assert_true(s.reader > 0);
	waitpid(s.reader, NULL, 0);
	assert_true(read(count[0], num, sizeof num - 1) > 0);
	alarm(0);
	assert_true(s.stalled_input_seen); /* backpressure did stop the input */
	assert_int_equal(s.got + strtoull(num, NULL, 10),
			 (uint64_t)INPUT_BYTES / LINE_BYTES * LINE_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(input_resumes_when_a_timer_flush_empties_the_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
