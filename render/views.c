/* views.c: the static report's index.html, ui/'s page offline (views.h). */
#include "views.h"

#include <string.h>

#include "escape.h"
#include "ui_files.h"

/* What ui/index.html holds that the report replaces: its title (the
 * report's), its style sheet link (inlined) and its entry module (the
 * modules as text and the boot script). */
static const char TITLE[] = "<title>flamepipe</title>";
static const char CSS_LINK[] = "<link rel=\"stylesheet\" href=\"/ui/app.css\">";
static const char APP_SCRIPT[] = "<script type=\"module\" src=\"/ui/app.js\"></script>";
static const char MODULE_SUFFIX[] = ".js";
static const char BOOT[] = "reportboot.js"; /* a classic script, not a module */
/* What a report cannot do: other rows per second (its cells are
 * bucketed once), other files (the list, compare), the server's SVG. */
static const char REPORT_CSS[] = "\n/* the static report (render/views.c) */\n"
				 "#home, label:has(> #rows), label:has(> #compare-file), "
				 "#svg-link, #list-view { display: none !important; }\n";

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

static int is_module(const struct ui_file *f)
{
	return ends_with(f->path, MODULE_SUFFIX) && !strchr(f->path, '/') && strcmp(f->path, BOOT);
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

/* JSON data (escaped by its writer so that no `</script` appears in it). */
static void data_script(struct fp_sink *s, const char *id, const char *json, size_t n)
{
	if (!json)
		return;
	fp_sink_str(s, "<script type=\"application/json\" id=\"");
	fp_sink_str(s, id);
	fp_sink_str(s, "\">");
	fp_sink_write(s, json, n);
	fp_sink_str(s, "</script>\n");
}

static void put_escaped(struct fp_sink *s, const char *text)
{
	fp_xml_escape(s, text, strlen(text));
}

/* The "Warnings (N)" section: a list, or "None.". */
static void write_warnings(struct fp_sink *s, const struct fp_views_page *p)
{
	fp_sink_printf(s, "<h2>Warnings (%zu)</h2>\n", p->n_warnings);
	if (!p->n_warnings) {
		fp_sink_str(s, "<p id=\"warnings\">None.</p>\n");
		return;
	}
	fp_sink_str(s, "<ul id=\"warnings\">\n");
	for (size_t i = 0; i < p->n_warnings; i++) {
		fp_sink_str(s, "<li class=\"warn\">");
		put_escaped(s, p->warnings[i]);
		fp_sink_str(s, "</li>\n");
	}
	fp_sink_str(s, "</ul>\n");
}

/* The statistics table, one row per stage ("stage TAB k=v TAB k=v"). */
static void write_stats(struct fp_sink *s, const struct fp_views_page *p)
{
	if (!p->n_stats)
		return;
	fp_sink_str(s, "<h2>Statistics</h2>\n<div class=\"scroll-x\"><table id=\"stats\">\n");
	for (size_t i = 0; i < p->n_stats; i++) {
		const char *line = p->stats[i];
		const char *tab = strchr(line, '\t');
		size_t stage_len = tab ? (size_t)(tab - line) : strlen(line);
		fp_sink_str(s, "<tr><th>");
		fp_xml_escape(s, line, stage_len);
		fp_sink_str(s, "</th><td>");
		const char *q = tab ? tab + 1 : line + stage_len;
		while (*q) {
			const char *t = strchr(q, '\t');
			size_t n = t ? (size_t)(t - q) : strlen(q);
			fp_xml_escape(s, q, n);
			if (!t)
				break;
			fp_sink_str(s, " &#160; ");
			q = t + 1;
		}
		fp_sink_str(s, "</td></tr>\n");
	}
	fp_sink_str(s, "</table></div>\n");
}

/* Below the views: the note on the timeline, warnings, statistics, footer. */
static void write_notes(struct fp_sink *s, const struct fp_views_page *p)
{
	fp_sink_str(s, "<section id=\"report-notes\">\n");
	if (p->note) {
		fp_sink_str(s, "<p id=\"timeline_note\" class=\"hint\">");
		put_escaped(s, p->note);
		fp_sink_str(s, "</p>\n");
	}
	write_warnings(s, p);
	write_stats(s, p);
	if (p->footer) {
		fp_sink_str(s, "<p id=\"footer\" class=\"hint\">");
		put_escaped(s, p->footer);
		fp_sink_str(s, "</p>\n");
	}
	fp_sink_str(s, "</section>\n");
}

int fp_views_page(struct fp_sink *s, const struct fp_views_page *p)
{
	const struct ui_file *page = ui_find("index.html"), *css = ui_find("app.css");
	const struct ui_file *boot = ui_find(BOOT);
	if (!page || !css || !boot)
		return -1;
	const char *html = (const char *)page->data, *end = html + page->len;
	const char *title = find_n(html, page->len, TITLE);
	const char *link = find_n(html, page->len, CSS_LINK);
	const char *app = find_n(html, page->len, APP_SCRIPT);
	if (!title || !link || !app || link < title || app < link)
		return -1;
	/* a module must not end its script element early */
	for (const struct ui_file *f = ui_files; f->path; f++)
		if (ends_with(f->path, MODULE_SUFFIX) &&
		    find_n((const char *)f->data, f->len, "</script"))
			return -1;

	fp_sink_write(s, html, (size_t)(title - html));
	fp_sink_str(s, "<title>");
	put_escaped(s, p->title ? p->title : "flamepipe");
	fp_sink_str(s, "</title>");
	title += strlen(TITLE);
	fp_sink_write(s, title, (size_t)(link - title));
	fp_sink_str(s, "<style>\n");
	fp_sink_write(s, css->data, css->len);
	fp_sink_str(s, REPORT_CSS);
	fp_sink_str(s, "</style>");
	link += strlen(CSS_LINK);
	fp_sink_write(s, link, (size_t)(app - link));
	write_notes(s, p);
	data_script(s, "fp_timeline", p->timeline_json, p->timeline_len);
	data_script(s, "fp_heatmap", p->heatmap_json, p->heatmap_len);
	data_script(s, "fp_folded", p->folded_json, p->folded_len);
	for (const struct ui_file *f = ui_files; f->path; f++)
		if (is_module(f))
			module_text(s, f->path, f->data, f->len);
	fp_sink_str(s, "<script>\n");
	fp_sink_write(s, boot->data, boot->len);
	fp_sink_str(s, "</script>");
	app += strlen(APP_SCRIPT);
	fp_sink_write(s, app, (size_t)(end - app));
	return 0;
}
