/* fp-bpftrace: turn the output of examples/bpftrace/profile.bt into exact
 * `perf script` text, so fp-read reads a bpftrace profile like a perf one.
 *
 * Interface:
 *	bpftrace -q -B none examples/bpftrace/profile.bt 49 | fp-bpftrace | fp-read ...
 *	fp-bpftrace [FILE]
 *
 * Input (stdin or FILE, gzip ok), per sample, as profile.bt prints it:
 *	comm pid/tid [cpu] secs.nsecs: 1 cpu-clock:
 *	<blank>                                   kstack(perf) opens with LF
 *	\tffffffff8225fe6b pv_native_safe_halt+11 kernel frames: no dso
 *	<blank>                                   ustack(perf) opens with LF
 *	\t7f6ee47162ad __libc_read+13 (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *	\t560fc9deeea1 0x560fc9deeea1 ([unknown])
 *	#end                                      end of the sample
 * The blank lines inside a sample cannot be told from perf's sample
 * separator without the `#end` marker, which is why profile.bt prints it.
 *
 * Output (stdout): perf script text, leaf first, one blank line after each
 * sample:
 *	comm pid/tid [cpu] secs.nsecs: 1 cpu-clock:
 *	\tffffffff8225fe6b pv_native_safe_halt+0xb ([kernel.kallsyms])
 *	\t    7f6ee47162ad __libc_read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *	\t    560fc9deeea1 [unknown] ([unknown])
 * Rewrites: blank lines inside a sample are dropped; decimal offsets become
 * `+0x<hex>`; `0x<addr>` symbols become `[unknown]`; a frame without dso gets
 * `([kernel.kallsyms])` (kernel address) or `([unknown])`; addresses are
 * right-aligned in 16 columns as perf prints them; the idle task's comm
 * `swapper/N` (pid 0) becomes `swapper` as in perf; bpftrace's `Lost N events`
 * becomes perf's `PERF_RECORD_LOST lost N` line (counted by fp-read);
 * `Attaching N probes...` is dropped. Other lines pass unchanged.
 *
 * Signals: SIGINT/SIGTERM end the input at a line boundary.
 * Exit codes: 0 ok, 1 bad gzip input, 100 usage, 111 system error,
 * 141 the reader went away. See docs/fp-bpftrace.md.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "fp_error.h"
#include "fp_io.h"
#include "fp_perfparse.h"
#include "fp_opts.h"

#define USAGE "usage: fp-bpftrace [FILE]"
#define STAGE_NAME "bpftrace"
#define END_MARKER "#end"
#define KERNEL_DSO "[kernel.kallsyms]"
#define UNKNOWN_NAME "[unknown]"
#define ADDR_WIDTH 16                         /* perf prints "%16" PRIx64 */
#define KERNEL_ADDR_MIN 0xffff800000000000ull /* x86-64 kernel half */
#define IDLE_COMM "swapper"
#define TIME_MAX 32 /* "secs.nsecs" of the last sample */

struct bpftrace_state {
	struct fp_pump pump;
	int in_sample;
	char last_time[TIME_MAX]; /* for PERF_RECORD_LOST lines */
	size_t last_time_len;
};

static int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t pn = strlen(prefix);
	return n >= pn && !memcmp(s, prefix, pn);
}

static int is_dec(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t parse_hex(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 16 + (uint64_t)(is_dec(s[i]) ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
	return v;
}

static void write_hex(struct fp_out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t i = sizeof tmp;

	do {
		tmp[--i] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	fp_out_write(o, tmp + i, sizeof tmp - i);
}

/* `\t<addr> <sym>[+<dec>][ (<dso>)]` -> `\t<addr> <sym>+0x<hex> (<dso>)`. */
static void write_frame(struct fp_out *o, const char *line, size_t len)
{
	const char *end = line + len, *addr = line + 1;
	const char *addr_end = memchr(addr, ' ', len - 1);

	if (!addr_end || !fp_all_hex(addr, (size_t)(addr_end - addr)) ||
	    addr_end - addr > ADDR_WIDTH) {
		fp_out_write(o, line, len); /* not a stack frame: leave it */
		fp_out_char(o, '\n');
		return;
	}
	size_t addr_len = (size_t)(addr_end - addr);
	const char *sym = addr_end + 1, *sym_end = end;
	const char *dso = NULL, *dso_end = NULL;

	/* The dso is the last balanced ` (...)`: C++ symbols contain
	 * parentheses, and so does a deleted file's `(/path (deleted))`. */
	if (end > sym && end[-1] == ')') {
		int depth = 0;
		for (const char *p = end - 1; p > sym; p--) {
			if (*p == ')') {
				depth++;
			} else if (*p == '(' && --depth == 0) {
				if (p[-1] == ' ') {
					dso = p + 1;
					dso_end = end - 1;
					sym_end = p - 1;
				}
				break;
			}
		}
	}
	fp_out_char(o, '\t');
	for (size_t i = addr_len; i < ADDR_WIDTH; i++)
		fp_out_char(o, ' ');
	fp_out_write(o, addr, addr_len);
	fp_out_char(o, ' ');

	size_t sym_len = (size_t)(sym_end - sym);
	if (sym_len > 2 && sym[0] == '0' && sym[1] == 'x' && fp_all_hex(sym + 2, sym_len - 2)) {
		fp_out_str(o, UNKNOWN_NAME);
	} else {
		const char *plus = NULL;
		for (const char *p = sym_end - 1; p > sym; p--)
			if (*p == '+') {
				plus = p;
				break;
			}
		if (plus && fp_all_digits(plus + 1, (size_t)(sym_end - plus - 1))) {
			fp_out_write(o, sym, (size_t)(plus - sym));
			fp_out_str(o, "+0x");
			write_hex(o, strtoull(plus + 1, NULL, 10));
		} else {
			fp_out_write(o, sym, sym_len);
		}
	}
	fp_out_str(o, " (");
	if (dso)
		fp_out_write(o, dso, (size_t)(dso_end - dso));
	else if (parse_hex(addr, addr_len) >= KERNEL_ADDR_MIN)
		fp_out_str(o, KERNEL_DSO);
	else
		fp_out_str(o, UNKNOWN_NAME);
	fp_out_str(o, ")\n");
}

/* Remembers the sample's `secs.nsecs` (the token before the first ": "). */
static void remember_time(struct bpftrace_state *st, const char *line, size_t len)
{
	const char *colon = memmem(line, len, ": ", 2);

	if (!colon)
		return;
	const char *t = colon;
	while (t > line && t[-1] != ' ')
		t--;
	size_t n = (size_t)(colon - t);
	if (n > 0 && n < TIME_MAX) {
		memcpy(st->last_time, t, n);
		st->last_time_len = n;
	}
}

static void end_sample(struct bpftrace_state *st)
{
	if (st->in_sample)
		fp_out_char(&st->pump.out, '\n');
	st->in_sample = 0;
}

/* The event line; `swapper/N 0/0` becomes `swapper 0/0` as perf prints it. */
static void write_header(struct bpftrace_state *st, const char *line, size_t len)
{
	struct fp_out *o = &st->pump.out;
	const size_t idle_len = sizeof IDLE_COMM - 1;

	end_sample(st);
	remember_time(st, line, len);
	if (starts_with(line, len, IDLE_COMM "/")) {
		const char *sp = memchr(line, ' ', len);
		if (sp && starts_with(sp, (size_t)(line + len - sp), " 0/0 ")) {
			fp_out_write(o, IDLE_COMM, idle_len);
			len -= (size_t)(sp - line);
			line = sp;
		}
	}
	fp_out_write(o, line, len);
	fp_out_char(o, '\n');
	st->in_sample = 1;
}

/* bpftrace's `Lost N events` as perf's side-band line. */
static void write_lost(struct bpftrace_state *st, const char *line, size_t len)
{
	struct fp_out *o = &st->pump.out;
	const char *n = line + 5, *e = n;

	while (e < line + len && is_dec(*e))
		e++;
	end_sample(st);
	fp_out_str(o, "bpftrace -1/-1 [000] ");
	if (st->last_time_len)
		fp_out_write(o, st->last_time, st->last_time_len);
	else
		fp_out_str(o, "0.000000000");
	fp_out_str(o, ": PERF_RECORD_LOST lost ");
	fp_out_write(o, n, (size_t)(e - n));
	fp_out_char(o, '\n');
}

static void on_line(struct fp_pump *p, char *line, size_t len)
{
	struct bpftrace_state *st = p->ctx;
	struct fp_out *o = &p->out;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return; /* blank lines inside a sample: #end ends it */
	if (line[0] == '\t') {
		write_frame(o, line, len);
	} else if (len == sizeof END_MARKER - 1 && !memcmp(line, END_MARKER, len)) {
		end_sample(st);
	} else if (starts_with(line, len, "Attaching ")) {
		/* bpftrace without -q: not part of the profile */
	} else if (starts_with(line, len, "Lost ") && len > 5 && is_dec(line[5])) {
		write_lost(st, line, len);
	} else if (line[0] == '#') {
		fp_out_write(o, line, len);
		fp_out_char(o, '\n');
	} else {
		write_header(st, line, len);
	}
}

static void on_eof(struct fp_pump *p)
{
	end_sample(p->ctx);
}

static void on_too_long(struct fp_pump *p, uint64_t lineno)
{
	fp_warn("%s:%llu: line longer than %u bytes skipped", p->in_name,
		(unsigned long long)lineno, FP_LINE_MAX);
}

static const struct fp_pump_ops bpftrace_ops = {
	.line = on_line,
	.eof = on_eof,
	.too_long = on_too_long,
};

int main(int argc, char **argv)
{
	static const struct fp_opt no_options[] = { { NULL } };
	static struct bpftrace_state st;
	const char *in_name;
	int in_fd;

	fp_set_prog(argv[0]);
	fp_opts_parse(argc, argv, no_options, USAGE, 1, NULL);
	in_fd = fp_open_input(optind < argc ? argv[optind] : NULL, &in_name);
	fp_pump_init(&st.pump, EV_DEFAULT, in_fd, 1, &bpftrace_ops, &st, FP_PUMP_GZIP);
	st.pump.in_name = in_name;
	st.pump.stage = STAGE_NAME;
	return fp_pump_run(&st.pump);
}
