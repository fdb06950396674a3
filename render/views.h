/* views.h: the web page's views (web/ui, as fp-serve serves them) inside
 * the static report's index.html, working offline.
 *
 * The report embeds web/ui/index.html as the document of an <iframe
 * srcdoc> (its own ids and styles, apart from the report's), with
 * app.css inlined, every web/ui module as text and the report's data
 * source (render/reportsource.js). The boot script (render/reportboot.js)
 * makes each text a module (blob URLs and an import map) and plugs the
 * data source into web/ui/api.js: the modules' requests are answered from
 * the samples' timeline the report page embeds (timeline.h), not by a
 * server. So the report has the server page's views (event picker,
 * processes and threads, small multiples, left-heavy order, sandwich,
 * flame chart, icicle, keys) without a second copy of them.
 *
 * fp-render links $(BUILD)/web/ui_files.o (web/embed.sh) for the files.
 *
 *	fp_views_iframe(&sink);   // the <iframe>, attribute-escaped
 */
#ifndef FP_VIEWS_H
#define FP_VIEWS_H

#include "sink.h"

/* The iframe's document (HTML). 0, or -1 if web/ui's page does not have
 * the places it must replace (its style sheet link and entry script) or a
 * module would end its script element. */
int fp_views_document(struct fp_sink *s);
/* <iframe id="views" srcdoc="..."> with that document. 0, or -1 (nothing
 * written) as above. */
int fp_views_iframe(struct fp_sink *s);

#endif
