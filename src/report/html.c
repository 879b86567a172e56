/* What the HTML reports share: the style sheet and escaping (rpl/html.h). */
#include "rpl/html.h"

const char rpl_html_style[] =
    ":root{--fg:#1d2433;--muted:#5b6577;--line:#d8dde6;--bg:#fff;--pass:#1a7f37;--warn:#9a6700;"
    "--fail:#cf222e;--imp:#0969da;--accent:#6639ba}"
    "*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,'Segoe UI',"
    "Roboto,sans-serif;color:var(--fg);background:#f6f8fa}"
    "header{background:#24292f;color:#fff;padding:1.2rem 1rem}header h1{margin:0;font-size:1.4rem}"
    "header p{margin:.3rem 0 0;color:#d0d7de}main{max-width:1100px;margin:0 auto;padding:1rem}"
    "section{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:1rem;"
    "margin:0 0 1rem}h2{font-size:1.2rem;margin:0 0 .5rem}h3{font-size:1rem;margin:1rem 0 .4rem}"
    ".meta{color:var(--muted);font-size:.9rem;word-break:break-all}"
    ".table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem}"
    "caption{text-align:left;color:var(--muted);padding:.2rem 0}"
    "th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;"
    "vertical-align:top}th{background:#f6f8fa;font-weight:600}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".badge{display:inline-block;border-radius:1em;padding:0 .6em;font-size:.85rem;font-weight:600;"
    "color:#fff}.pass{background:var(--pass)}.warn{background:var(--warn)}.fail{background:"
    "var(--fail)}.improved{background:var(--imp)}.skipped{background:var(--muted)}"
    "figure{margin:.5rem 0}svg.chart{width:100%;height:auto;max-width:760px;display:block}"
    "figcaption{color:var(--muted);font-size:.85rem}figure.wide svg{max-width:100%;height:auto;"
    "display:block}.msg{font-size:.85rem;color:var(--muted)}"
    ".big{font-size:1.6rem;font-weight:700}"
    "@media (max-width:600px){body{font-size:14px}main{padding:.5rem}th,td{padding:.3rem}}"
    "@media print{body{background:#fff}header{background:#fff;color:#000;border-bottom:2px solid "
    "#000}header p{color:#000}section{break-inside:avoid;border-color:#999}.badge{color:#000;"
    "border:1px solid #000;background:none}}";

void rpl_html_esc(rpl_strbuf *out, const char *s)
{
    static const char *const entities[256] = {
        ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;"};

    for (; s && *s; s++) {
        const char *entity = entities[(unsigned char)*s];

        if (entity)
            rpl_strbuf_puts(out, entity);
        else
            rpl_strbuf_putc(out, *s);
    }
}
