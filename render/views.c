/* views.c: the web page's views in the static report (see views.h). */
#include "views.h"

#include <string.h>

#include "../web/ui_files.h"
#include "escape.h"
#include "reportboot_js.inc"
#include "reportsource_js.inc"

/* Where web/ui/index.html loads its style sheet and its entry module:
 * both are replaced by what the report embeds. */
static const char CSS_LINK[] = "<link rel=\"stylesheet\" href=\"/ui/app.css\">";
static const char APP_SCRIPT[] = "<script type=\"module\" src=\"/ui/app.js\"></script>";
static const char MODULE_SUFFIX[] = ".js";
/* What a report cannot do: other rows per second (its cells are
 * bucketed once), other files (the list, compare), the server's SVG. */
static const char REPORT_CSS[] =
	"\n/* the static report (render/views.c) */\n"
	"#home, label:has(> #rows), label:has(> #compare-file), #svg-link, #list-view { display: none !important; }\n";

static const struct ui_file *ui_find(const char *path)
{
	for (const struct ui_file *f = ui_files; f->path; f++)
		if (!strcmp(f->path, path))
			return f;
	return NULL;
}

static const char *find_n(const char *hay, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	for (size_t i = 0; m <= n && i <= n - m; i++)
		if (!memcmp(hay + i, needle, m))
			return hay + i;
	return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* One module as text the boot script turns into a module. */
static void module_text(struct fp_sink *s, const char *name, const void *src, size_t n)
{
	fp_sink_str(s, "<script type=\"text/plain\" data-fp-module=\"");
	fp_sink_str(s, name);
	fp_sink_str(s, "\">");
	fp_sink_write(s, src, n);
	fp_sink_str(s, "</script>\n");
}

int fp_views_document(struct fp_sink *s)
{
	const struct ui_file *page = ui_find("index.html"), *css = ui_find("app.css");
	if (!page || !css)
		return -1;
	const char *html = (const char *)page->data, *end = html + page->len;
	const char *link = find_n(html, page->len, CSS_LINK);
	const char *app = find_n(html, page->len, APP_SCRIPT);
	if (!link || !app || app < link)
		return -1;
	/* a module must not end its script element early */
	for (const struct ui_file *f = ui_files; f->path; f++)
		if (ends_with(f->path, MODULE_SUFFIX) && find_n((const char *)f->data, f->len, "</script"))
			return -1;

	fp_sink_write(s, html, (size_t)(link - html));
	/* the views' state goes into their own address's hash (about:srcdoc#/profile?...),
	 * not resolved against the report's file:// address */
	fp_sink_str(s, "<base href=\"about:srcdoc\">\n<style>\n");
	fp_sink_write(s, css->data, css->len);
	fp_sink_str(s, REPORT_CSS);
	fp_sink_str(s, "</style>");
	link += strlen(CSS_LINK);
	fp_sink_write(s, link, (size_t)(app - link));
	for (const struct ui_file *f = ui_files; f->path; f++)
		if (ends_with(f->path, MODULE_SUFFIX) && !strchr(f->path, '/'))
			module_text(s, f->path, f->data, f->len);
	module_text(s, "reportsource.js", reportsource_js, sizeof reportsource_js - 1);
	fp_sink_str(s, "<script>\n");
	fp_sink_write(s, reportboot_js, sizeof reportboot_js - 1);
	fp_sink_str(s, "</script>");
	app += strlen(APP_SCRIPT);
	fp_sink_write(s, app, (size_t)(end - app));
	return 0;
}

int fp_views_iframe(struct fp_sink *s)
{
	struct fp_sink doc;
	int ok;

	fp_sink_init_mem(&doc);
	ok = fp_views_document(&doc) == 0;
	if (ok) {
		fp_sink_str(s, "<iframe id=\"views\" title=\"flame graph views\" srcdoc=\"");
		fp_html_attr_escape(s, doc.buf, doc.len);
		fp_sink_str(s, "\"></iframe>\n");
	}
	fp_sink_free(&doc);
	return ok ? 0 : -1;
}
