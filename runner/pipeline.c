/* pipeline.c: pipeline file parsing, variables and program lookup
 * (pipeline.h has the format; docs/flamepipe.md the user's view). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fp_error.h"
#include "pipeline.h"

#define RETRIES_MAX 1000

/* ---- variables --------------------------------------------------------- */

void fp_vars_init(struct fp_vars *vars)
{
	memset(vars, 0, sizeof *vars);
}

/* Frees a list of n strings and empties it. */
static void free_words(char ***w, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*w)[i]);
	free(*w);
	*w = NULL;
	*n = 0;
}

static void var_clear(struct fp_var *var)
{
	free_words(&var->words, &var->n);
}

void fp_vars_free(struct fp_vars *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		var_clear(&vars->v[i]);
		free(vars->v[i].name);
	}
	free(vars->v);
	memset(vars, 0, sizeof *vars);
}

int fp_var_name_ok(const char *name, size_t n)
{
	if (n == 0 || !(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
			(name[0] >= 'a' && name[0] <= 'z')))
		return 0;
	for (size_t i = 1; i < n; i++) {
		char c = name[i];

		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

static const struct fp_var *vars_lookup(const struct fp_vars *vars, const char *name, size_t n)
{
	for (size_t i = 0; i < vars->n; i++)
		if (strlen(vars->v[i].name) == n && memcmp(vars->v[i].name, name, n) == 0)
			return &vars->v[i];
	return NULL;
}

const struct fp_var *fp_vars_get(const struct fp_vars *vars, const char *name)
{
	return vars_lookup(vars, name, strlen(name));
}

static struct fp_var *vars_get_or_add(struct fp_vars *vars, const char *name)
{
	struct fp_var *var = (struct fp_var *)fp_vars_get(vars, name);

	if (var)
		return var;
	if (vars->n == vars->cap) {
		vars->cap = vars->cap ? 2 * vars->cap : 16;
		vars->v = fp_xrealloc(vars->v, vars->cap * sizeof *vars->v);
	}
	var = &vars->v[vars->n++];
	memset(var, 0, sizeof *var);
	var->name = fp_xstrdup(name);
	return var;
}

static void var_push(struct fp_var *var, const char *word)
{
	var->words = fp_xrealloc(var->words, (var->n + 1) * sizeof *var->words);
	var->words[var->n++] = fp_xstrdup(word);
}

void fp_vars_set(struct fp_vars *vars, const char *name, const char *value)
{
	struct fp_var *var = vars_get_or_add(vars, name);

	var_clear(var);
	var->is_list = 0;
	var_push(var, value);
}

void fp_vars_list(struct fp_vars *vars, const char *name)
{
	if (fp_vars_get(vars, name))
		return;
	vars_get_or_add(vars, name)->is_list = 1;
}

void fp_vars_append(struct fp_vars *vars, const char *name, const char *word)
{
	struct fp_var *var = vars_get_or_add(vars, name);

	var->is_list = 1;
	var_push(var, word);
}

int fp_vars_define(struct fp_vars *vars, const char *assignment, int append)
{
	const char *eq = strchr(assignment, '=');

	if (!eq || !fp_var_name_ok(assignment, (size_t)(eq - assignment)))
		return -1;
	char *name = fp_xstrndup(assignment, (size_t)(eq - assignment));

	if (append)
		fp_vars_append(vars, name, eq + 1);
	else
		fp_vars_set(vars, name, eq + 1);
	free(name);
	return 0;
}

/* ---- growable strings and word lists ------------------------------------ */

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = fp_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

struct words {
	char **w;
	size_t n;
};

static void words_push(struct words *ws, const char *s)
{
	ws->w = fp_xrealloc(ws->w, (ws->n + 2) * sizeof *ws->w);
	ws->w[ws->n++] = fp_xstrdup(s);
	ws->w[ws->n] = NULL;
}

static void words_free(struct words *ws)
{
	free_words(&ws->w, &ws->n);
}

/* ---- the lexer ---------------------------------------------------------- */

struct parser {
	const char *file;
	unsigned long line; /* first physical line of the logical line */
	const struct fp_vars *vars;
	char *err;
	size_t errlen;
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "%s:%lu: ", ps->file, ps->line);

	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A ${...} reference starting at s[*i] == '$'. */
struct varref {
	const char *name;
	size_t name_len;
	const char *deflt; /* text after ":-", or NULL */
	size_t deflt_len;
};

static int parse_varref(struct parser *ps, const char *s, size_t len, size_t *i, struct varref *ref)
{
	size_t j = *i + 2; /* after "${" */
	size_t start = j;

	while (j < len && s[j] != '}' && s[j] != ':')
		j++;
	if (!fp_var_name_ok(s + start, j - start))
		return perr(
			ps,
			"expected a variable name ([A-Za-z_][A-Za-z0-9_]*) after '${', got '%.*s'",
			(int)(j - start), s + start);
	ref->name = s + start;
	ref->name_len = j - start;
	ref->deflt = NULL;
	ref->deflt_len = 0;
	if (j < len && s[j] == ':') {
		if (j + 1 >= len || s[j + 1] != '-')
			return perr(ps, "expected '}' or ':-' after '${%.*s'", (int)ref->name_len,
				    ref->name);
		size_t d = j + 2;

		j = d;
		while (j < len && s[j] != '}')
			j++;
		ref->deflt = s + d;
		ref->deflt_len = j - d;
	}
	if (j >= len)
		return perr(ps, "expected '}' to close '${%.*s'", (int)ref->name_len, ref->name);
	*i = j + 1;
	return 0;
}

/* The value of a reference: the variable, or its default when it is unset
 * or empty. *deflt_used tells which. */
static int ref_value(struct parser *ps, const struct varref *ref, const struct fp_var **var)
{
	const struct fp_var *v = vars_lookup(ps->vars, ref->name, ref->name_len);
	int empty = !v || v->n == 0 || (!v->is_list && v->words[0][0] == '\0');

	if (empty && ref->deflt) {
		*var = NULL;
		return 0;
	}
	if (!v)
		return perr(ps, "undefined variable ${%.*s} (define it with -D %.*s=VALUE)",
			    (int)ref->name_len, ref->name, (int)ref->name_len, ref->name);
	*var = v;
	return 0;
}

/* Appends a reference's value to b: list words are joined with a space. */
static void append_value(struct buf *b, const struct varref *ref, const struct fp_var *v)
{
	if (!v) {
		buf_add(b, ref->deflt, ref->deflt_len);
		return;
	}
	for (size_t k = 0; k < v->n; k++) {
		if (k)
			buf_addc(b, ' ');
		buf_add(b, v->words[k], strlen(v->words[k]));
	}
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Splits one logical line into expanded words. */
/* "..." from s[*i] (the opening quote): \" \\ \$ escape, ${NAME} expands
 * (a list's words joined by blanks). */
static int lex_double_quoted(struct parser *ps, const char *s, size_t len, size_t *i, struct buf *b)
{
	(*i)++;
	for (;;) {
		if (*i >= len) {
			perr(ps, "unterminated \"...\" (expected a closing \")");
			return -1;
		}
		if (s[*i] == '"') {
			(*i)++;
			return 0;
		}
		if (s[*i] == '\\' && *i + 1 < len &&
		    (s[*i + 1] == '"' || s[*i + 1] == '\\' || s[*i + 1] == '$')) {
			buf_addc(b, s[*i + 1]);
			*i += 2;
		} else if (s[*i] == '$' && *i + 1 < len && s[*i + 1] == '{') {
			struct varref ref;
			const struct fp_var *v;

			if (parse_varref(ps, s, len, i, &ref) < 0 || ref_value(ps, &ref, &v) < 0)
				return -1;
			append_value(b, &ref, v);
		} else {
			buf_addc(b, s[(*i)++]);
		}
	}
}

/* One piece of a word at s[*i]: '...', "...", \c, ${NAME} or a character. */
static int lex_piece(struct parser *ps, const char *s, size_t len, size_t *i, struct buf *b)
{
	char c = s[*i];

	if (c == '\'') {
		const char *end = memchr(s + *i + 1, '\'', len - *i - 1);

		if (!end) {
			perr(ps, "unterminated '...' (expected a closing ')");
			return -1;
		}
		buf_add(b, s + *i + 1, (size_t)(end - s - *i - 1));
		*i = (size_t)(end - s) + 1;
	} else if (c == '"') {
		return lex_double_quoted(ps, s, len, i, b);
	} else if (c == '\\') {
		if (*i + 1 >= len) {
			perr(ps,
			     "a backslash at the end of the text (expected a character to escape)");
			return -1;
		}
		buf_addc(b, s[*i + 1]);
		*i += 2;
	} else if (c == '$' && *i + 1 < len && s[*i + 1] == '{') {
		struct varref ref;
		const struct fp_var *v;

		if (parse_varref(ps, s, len, i, &ref) < 0 || ref_value(ps, &ref, &v) < 0)
			return -1;
		if (v && v->is_list) {
			perr(ps,
			     "list variable ${%s} must stand alone as a word, "
			     "or be inside \"...\"",
			     v->name);
			return -1;
		}
		append_value(b, &ref, v);
	} else {
		buf_addc(b, c);
		(*i)++;
	}
	return 0;
}

/* A list variable standing alone at s[*i] expands to zero or more words:
 * 1 if it did (pushed, *i past it), 0 if s[*i] is not one, -1 on error. */
static int lex_list_word(struct parser *ps, const char *s, size_t len, size_t *i, struct words *out)
{
	size_t j = *i;
	struct varref ref;
	const struct fp_var *v;

	if (s[*i] != '$' || *i + 1 >= len || s[*i + 1] != '{')
		return 0;
	if (parse_varref(ps, s, len, &j, &ref) < 0 || ref_value(ps, &ref, &v) < 0)
		return -1;
	if ((j < len && !is_blank(s[j])) || !v || !v->is_list)
		return 0;
	for (size_t k = 0; k < v->n; k++)
		words_push(out, v->words[k]);
	*i = j;
	return 1;
}

static int lex_line(struct parser *ps, const char *s, size_t len, struct words *out)
{
	size_t i = 0;
	struct buf b = { 0 };
	int rc = 0, list;

	for (;;) {
		while (i < len && is_blank(s[i]))
			i++;
		if (i >= len || s[i] == '#')
			break;
		if ((list = lex_list_word(ps, s, len, &i, out)) < 0) {
			rc = -1;
			break;
		}
		if (list)
			continue;
		b.len = 0;
		buf_add(&b, "", 0);
		while (rc == 0 && i < len && !is_blank(s[i]))
			rc = lex_piece(ps, s, len, &i, &b);
		if (rc < 0)
			break;
		words_push(out, b.p);
	}
	free(b.p);
	return rc;
}

/* ---- stages -------------------------------------------------------------- */

int fp_stage_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > FP_STAGE_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || c == '-' || c == '.' || (c >= 'A' && c <= 'Z') ||
		      (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

static const char *const restart_names[] = {
	[FP_RESTART_NEVER] = "never",
	[FP_RESTART_ON_FAILURE] = "on-failure",
	[FP_RESTART_ALWAYS] = "always",
};

const char *fp_restart_name(enum fp_restart r)
{
	return restart_names[r];
}

static const char *const give_up_names[] = {
	[FP_GIVE_UP_STOP] = "stop",
	[FP_GIVE_UP_BYPASS] = "bypass",
};

const char *fp_give_up_name(enum fp_give_up g)
{
	return give_up_names[g];
}

/* restart=..., retries=..., give-up=..., unit=... or omit-if=...: 1 if word was a setting, 0
 * if it is the program, -1 on a bad setting. *omit is set by omit-if= with a value. */
static int parse_setting(struct parser *ps, const char *word, struct fp_stage_spec *st, int *omit)
{
	const char *eq = strchr(word, '=');

	if (!eq || strchr(word, '/'))
		return 0;
	size_t klen = (size_t)(eq - word);
	const char *val = eq + 1;

	if (klen == 7 && memcmp(word, "restart", klen) == 0) {
		for (size_t r = 0; r < sizeof restart_names / sizeof *restart_names; r++)
			if (strcmp(val, restart_names[r]) == 0) {
				st->restart = (enum fp_restart)r;
				return 1;
			}
		return perr(
			ps, "stage '%s': bad restart policy '%s' (expected never, on-failure or always)",
			st->name, val);
	}
	if (klen == 7 && memcmp(word, "retries", klen) == 0) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(val, &end, 10);
		if (!*val || *end || errno || n > RETRIES_MAX || val[0] == '-')
			return perr(ps, "stage '%s': bad retries '%s' (expected an integer 0..%d)",
				    st->name, val, RETRIES_MAX);
		st->retries = (unsigned)n;
		return 1;
	}
	if (klen == 7 && memcmp(word, "give-up", klen) == 0) {
		for (size_t g = 0; g < sizeof give_up_names / sizeof *give_up_names; g++)
			if (strcmp(val, give_up_names[g]) == 0) {
				st->give_up = (enum fp_give_up)g;
				return 1;
			}
		return perr(ps, "stage '%s': bad give-up '%s' (expected stop or bypass)", st->name,
			    val);
	}
	/* omit-if=${VAR:-}: the stage is left out when a command or -D set
	 * VAR (NO_RANGE: runner/options.h fp_cli_no_range). */
	if (klen == 7 && memcmp(word, "omit-if", klen) == 0) {
		*omit |= *val != '\0';
		return 1;
	}
	if (klen == 4 && memcmp(word, "unit", klen) == 0) {
		if (!fp_stage_name_ok(val))
			return perr(ps,
				    "stage '%s': bad unit name '%s' (expected a name as a stage's)",
				    st->name, val);
		free(st->unit);
		st->unit = fp_xstrdup(val);
		return 1;
	}
	/* Looks like a setting but is none we know: a typo, most likely. */
	return perr(ps,
		    "stage '%s': unknown setting '%.*s' (expected restart=..., retries=..., "
		    "give-up=..., unit=... or omit-if=..., then the program)",
		    st->name, (int)klen, word);
}

static int add_stage(struct parser *ps, struct fp_pipeline *pl, struct words *ws)
{
	struct fp_stage_spec st = { 0 };
	char where[FP_PIPELINE_ERR_MAX];
	size_t i = 1;

	if (!fp_stage_name_ok(ws->w[0]))
		return perr(ps,
			    "bad stage name '%s' (expected letters, digits, '_', '-' or '.', "
			    "at most %d, not starting with '.' or '-')",
			    ws->w[0], FP_STAGE_NAME_MAX);
	if (fp_pipeline_find(pl, ws->w[0]) >= 0)
		return perr(ps, "stage '%s' is defined twice (expected unique stage names)",
			    ws->w[0]);
	st.name = ws->w[0];
	st.restart = FP_RESTART_NEVER;
	st.retries = FP_RETRIES_DEFAULT;
	int omit = 0;

	for (; i < ws->n; i++) {
		int r = parse_setting(ps, ws->w[i], &st, &omit);

		if (r < 0) {
			free(st.unit);
			return -1;
		}
		if (r == 0)
			break;
	}
	if (i >= ws->n) {
		free(st.unit);
		return perr(ps, "stage '%s': expected a program after the stage name", st.name);
	}
	if (omit) { /* its neighbours are joined */
		free(st.unit);
		return 0;
	}
	/* A unit is a run of adjacent stages: the links inside it are
	 * drained and reused when it restarts (runner/supervise.c). */
	if (st.unit && pl->n &&
	    (!pl->stages[pl->n - 1].unit || strcmp(pl->stages[pl->n - 1].unit, st.unit))) {
		for (size_t k = 0; k + 1 < pl->n; k++)
			if (pl->stages[k].unit && !strcmp(pl->stages[k].unit, st.unit)) {
				free(st.unit);
				return perr(ps,
					    "stage '%s': unit '%s' is not one run of adjacent "
					    "stages (expected its stages one after another)",
					    ws->w[0], pl->stages[k].unit);
			}
	}
	st.name = fp_xstrdup(ws->w[0]);
	snprintf(where, sizeof where, "%s:%lu", ps->file, ps->line);
	st.where = fp_xstrdup(where);
	st.argc = ws->n - i;
	st.argv = fp_xcalloc(st.argc + 1, sizeof *st.argv);
	for (size_t k = 0; k < st.argc; k++)
		st.argv[k] = fp_xstrdup(ws->w[i + k]);
	pl->stages = fp_xrealloc(pl->stages, (pl->n + 1) * sizeof *pl->stages);
	pl->stages[pl->n++] = st;
	return 0;
}

int fp_pipeline_parse_string(const char *name, const char *text, const struct fp_vars *vars,
			     struct fp_pipeline *pl, char *err, size_t errlen)
{
	struct parser ps = { name, 0, vars, err, errlen };
	const char *p = text;
	unsigned long lineno = 0;
	struct buf logical = { 0 };
	int rc = 0;

	memset(pl, 0, sizeof *pl);
	pl->file = fp_xstrdup(name);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		if (logical.len == 0)
			ps.line = lineno;
		if (memchr(p, '\0', n)) {
			perr(&ps, "a NUL byte (expected text)");
			goto fail;
		}
		/* An odd number of final backslashes continues the line. */
		size_t bs = 0;

		while (bs < n && p[n - 1 - bs] == '\\')
			bs++;
		if (bs % 2 == 1) {
			buf_add(&logical, p, n - 1);
			buf_addc(&logical, ' ');
		} else {
			struct words ws = { 0 };

			buf_add(&logical, p, n);
			if (lex_line(&ps, logical.p, logical.len, &ws) < 0 ||
			    (ws.n > 0 && add_stage(&ps, pl, &ws) < 0)) {
				words_free(&ws);
				goto fail;
			}
			words_free(&ws);
			logical.len = 0;
		}
		p += n + (nl ? 1 : 0);
	}
	if (logical.len > 0) {
		perr(&ps, "a backslash at the end of the file (expected another line)");
		goto fail;
	}
	if (pl->n == 0) {
		ps.line = lineno ? lineno : 1; /* an empty file: its line 1 */
		perr(&ps, "no stages (expected lines 'NAME [SETTING=VALUE]... PROGRAM [ARG]...')");
		goto fail;
	}
	goto done;
fail:
	rc = -1;
	fp_pipeline_free(pl);
done:
	free(logical.p);
	return rc;
}

int fp_pipeline_parse_file(const char *path, const struct fp_vars *vars, struct fp_pipeline *pl,
			   char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct buf text = { 0 };
	char chunk[8192];
	size_t n;
	int rc;

	memset(pl, 0, sizeof *pl);
	if (!f) {
		snprintf(err, errlen, "cannot open pipeline file %s: %s", path, strerror(errno));
		return -1;
	}
	buf_add(&text, "", 0);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&text, chunk, n);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read pipeline file %s: %s", path, strerror(errno));
		fclose(f);
		free(text.p);
		return -1;
	}
	fclose(f);
	if (strlen(text.p) != text.len) {
		snprintf(err, errlen, "%s: a NUL byte (expected a text file)", path);
		free(text.p);
		return -1;
	}
	rc = fp_pipeline_parse_string(path, text.p, vars, pl, err, errlen);
	free(text.p);
	return rc;
}

/* ---- program lookup ----------------------------------------------------- */

static int is_executable_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;
		return 0;
	}
	return access(path, X_OK) == 0;
}

static char *join_path(const char *dir, size_t dlen, const char *prog)
{
	size_t plen = strlen(prog);
	char *s;

	if (dlen == 0) { /* an empty PATH entry is the current directory */
		dir = ".";
		dlen = 1;
	}
	s = fp_xmalloc(dlen + 1 + plen + 1);
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, prog, plen + 1);
	return s;
}

char *fp_find_program(const char *prog, const char *bindir)
{
	const char *path;

	if (!*prog) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(prog, '/')) {
		if (is_executable_file(prog))
			return fp_xstrdup(prog);
		return NULL;
	}
	if (bindir) {
		char *s = join_path(bindir, strlen(bindir), prog);

		if (is_executable_file(s))
			return s;
		free(s);
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *colon = strchr(path, ':');
		size_t dlen = colon ? (size_t)(colon - path) : strlen(path);
		char *s = join_path(path, dlen, prog);

		if (is_executable_file(s))
			return s;
		free(s);
		if (!colon)
			break;
		path = colon + 1;
	}
	errno = ENOENT;
	return NULL;
}

int fp_pipeline_resolve(struct fp_pipeline *pl, const char *bindir, char *err, size_t errlen)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct fp_stage_spec *st = &pl->stages[i];

		free(st->path);
		st->path = fp_find_program(st->argv[0], bindir);
		if (!st->path) {
			if (strchr(st->argv[0], '/'))
				snprintf(err, errlen,
					 "%s: stage '%s': program '%s' is not an executable file: "
					 "%s",
					 st->where, st->name, st->argv[0], strerror(errno));
			else
				snprintf(err, errlen,
					 "%s: stage '%s': program '%s' not found "
					 "(looked in %s and $PATH)",
					 st->where, st->name, st->argv[0], bindir ? bindir : "-");
			return -1;
		}
	}
	return 0;
}

long fp_pipeline_find(const struct fp_pipeline *pl, const char *name)
{
	for (size_t i = 0; i < pl->n; i++)
		if (strcmp(pl->stages[i].name, name) == 0)
			return (long)i;
	return -1;
}

void fp_pipeline_free(struct fp_pipeline *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct fp_stage_spec *st = &pl->stages[i];

		for (size_t k = 0; k < st->argc; k++)
			free(st->argv[k]);
		free(st->argv);
		free(st->name);
		free(st->where);
		free(st->path);
		free(st->unit);
	}
	free(pl->stages);
	free(pl->file);
	memset(pl, 0, sizeof *pl);
}
