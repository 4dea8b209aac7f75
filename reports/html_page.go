package reports

import (
	"html"
	"strconv"
	"strings"
)

// Every HTML page electbench writes (the run report, the comparison, the
// history index) is one self-contained file: the style sheet and the few
// lines of script are inline, charts are inline SVG, and nothing refers to
// the network, so the page opens from disk on a machine without one.

// pageStyle is the style sheet of every page.
const pageStyle = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif;color:#1a1a1a;margin:0 auto;padding:0 20px 40px;max-width:1400px}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.meta{color:#555;margin:0 0 8px}nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer;user-select:none}table.sortable th:after{content:" \2195";color:#aaa}
table.sortable th[aria-sort=ascending]:after{content:" \2191";color:#000}table.sortable th[aria-sort=descending]:after{content:" \2193";color:#000}
tr.bad td{background:#fff1f0}.bad{color:#b00020}.good{color:#1b7a2e}.warn{color:#8a5a00}
.charts{display:flex;flex-wrap:wrap;gap:10px}.charts figure{margin:0;border:1px solid #eee;padding:4px}
svg.chart{max-width:100%;height:auto}svg.chart text{font-family:"Liberation Sans",Arial,Helvetica,sans-serif!important}
svg.lamport{font-family:system-ui,"Liberation Sans",Arial,sans-serif;max-width:100%;height:auto;border:1px solid #eee}
pre{background:#f7f7f7;border:1px solid #e4e4e4;padding:6px 8px;overflow-x:auto;font-size:12px}
.trial{border:1px solid #e4c0c0;border-radius:4px;padding:6px 10px;margin:8px 0}.trial h3{margin:2px 0 4px}
.note{color:#555;font-style:italic}#js-errors{color:#b00020;white-space:pre-wrap}
.verdict{border-radius:4px;padding:8px 12px;margin:6px 0 10px;font-size:15px}.verdict.ok{background:#eef8f0;border:1px solid #9fd3aa;color:#1b5e2b}
.verdict.fail{background:#fff1f0;border:1px solid #e4a0a0}.verdict ul{margin:0;padding-left:20px}.verdict li{margin:2px 0}
ul.legend{list-style:none;padding:0;margin:2px 0 10px;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}ul.legend li{display:flex;align-items:center;gap:5px}
.maint{display:none}body.show-maint .maint{display:inline}b.violating{background:#ffe1de}
details{margin:10px 0}details>summary{cursor:pointer;font-weight:600;margin:6px 0}ul.singles{font-size:13px;color:#333}
`

// pageScript makes tables with class "sortable" sort by a clicked column
// (numbers by their data-v attribute, text otherwise, empty cells last) and
// marks the body data-ready="1" once it has run. A link ending in
// #sort=TABLE-ID.COLUMN.asc|desc opens the page with that table sorted. It
// goes at the end of the body.
const pageScript = `
(function(){
function val(td){var v=td.getAttribute("data-v");if(v!==null&&v!==""){var f=parseFloat(v);if(!isNaN(f))return f;}var t=td.textContent.trim();return t===""||t==="-"?null:t.toLowerCase();}
function sortBy(th){var table=th.closest("table"),body=table.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),asc=th.getAttribute("aria-sort")!=="ascending";
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);if(x===null||y===null)return x===y?0:(x===null?1:-1);
if(typeof x!==typeof y)return typeof x==="number"?-1:1;return (x<y?-1:x>y?1:0)*(asc?1:-1);});
rows.forEach(function(r){body.appendChild(r);});
Array.prototype.forEach.call(th.parentNode.children,function(h){h.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",asc?"ascending":"descending");}
document.querySelectorAll("table.sortable thead th").forEach(function(th){th.tabIndex=0;
th.addEventListener("click",function(){sortBy(th);});th.addEventListener("keydown",function(e){if(e.key==="Enter")sortBy(th);});});
var m=/^#sort=([\w-]+)\.(\d+)\.(asc|desc)$/.exec(location.hash);
if(m){var t=document.getElementById(m[1]);var th=t&&t.tHead?t.tHead.rows[0].cells[+m[2]]:null;
if(th){if(m[3]==="desc")th.setAttribute("aria-sort","ascending");sortBy(th);}}
document.querySelectorAll("input.show-maint").forEach(function(c){c.addEventListener("change",function(){
document.body.classList.toggle("show-maint",c.checked);document.querySelectorAll("input.show-maint").forEach(function(o){o.checked=c.checked;});});});
function openTarget(){var e=document.getElementById(decodeURIComponent(location.hash.slice(1)));for(;e;e=e.parentElement){if(e.tagName==="DETAILS")e.open=true;}}
window.addEventListener("hashchange",openTarget);openTarget();
var pending=window.__pageErrors||[];pending.forEach(function(m){window.__reportError(m);});
document.body.setAttribute("data-ready","1");
})();
`

// errorHook goes first in the head: any script error or console.error is
// written into the page (#js-errors), where people and the headless-browser
// test see it.
const errorHook = `
window.__pageErrors=[];
window.__reportError=function(m){var d=document.getElementById("js-errors");if(d){d.hidden=false;d.textContent+=m+"\n";}else{window.__pageErrors.push(m);}};
window.onerror=function(m,s,l,c){window.__reportError("error: "+m+" (line "+l+":"+c+")");};
(function(){var ce=console.error;console.error=function(){window.__reportError("console.error: "+Array.prototype.join.call(arguments," "));return ce.apply(console,arguments);};})();
`

// page accumulates one HTML document.
type page struct{ strings.Builder }

func newPage(title string) *page {
	p := &page{}
	p.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.WriteString("<title>" + esc(title) + "</title>\n<script>" + errorHook + "</script>\n")
	p.WriteString("<style>" + pageStyle + "</style>\n</head>\n<body>\n")
	p.WriteString("<div id=\"js-errors\" hidden></div>\n")
	p.WriteString("<h1>" + esc(title) + "</h1>\n")
	return p
}

func (p *page) finish() string {
	p.WriteString("<script>" + pageScript + "</script>\n</body>\n</html>\n")
	return p.String()
}

// esc escapes text for HTML content and attributes.
func esc(s string) string { return html.EscapeString(s) }

// table writes a table: head cells, then body rows of cells. A cell is
// plain text, or numeric with a sort value.
type cell struct {
	text    string // escaped when written, unless raw
	raw     bool   // text is HTML
	num     bool   // right-aligned, sorted by v
	v       float64
	hasV    bool
	title   string
	classes string
}

func textCell(s string) cell { return cell{text: s} }

func rawCell(s string) cell { return cell{text: s, raw: true} }

func intCell(n int) cell { return cell{text: strconv.Itoa(n), num: true, v: float64(n), hasV: true} }

// optCell is an optional figure with the given decimals, "-" when unset.
func optCell(o Opt[float64], decimals int) cell {
	if !o.Set {
		return cell{text: "-", num: true}
	}
	return cell{text: fixedText(o.V, decimals), num: true, v: o.V, hasV: true}
}

func floatCell(v float64, decimals int) cell { return optCell(Some(v), decimals) }

// fixedText writes v with at most decimals decimals, dropping trailing zeros.
func fixedText(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func (p *page) table(class string, head []string, rows [][]cell) { p.tableID("", class, head, rows) }

// tableID writes a table with an id (for #sort= links and anchors).
func (p *page) tableID(id, class string, head []string, rows [][]cell) {
	p.WriteString("<table")
	if id != "" {
		p.WriteString(" id=\"" + id + "\"")
	}
	p.WriteString(" class=\"" + class + "\">\n<thead><tr>")
	for _, h := range head {
		p.WriteString("<th>" + esc(h) + "</th>")
	}
	p.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		p.tableRow("", r)
	}
	p.WriteString("</tbody>\n</table>\n")
}

func (p *page) tableRow(class string, r []cell) {
	if class != "" {
		p.WriteString("<tr class=\"" + class + "\">")
	} else {
		p.WriteString("<tr>")
	}
	for _, c := range r {
		p.WriteString("<td")
		classes := c.classes
		if c.num {
			classes = strings.TrimSpace("n " + classes)
		}
		if classes != "" {
			p.WriteString(" class=\"" + classes + "\"")
		}
		if c.hasV {
			p.WriteString(" data-v=\"" + strconv.FormatFloat(c.v, 'g', -1, 64) + "\"")
		}
		if c.title != "" {
			p.WriteString(" title=\"" + esc(c.title) + "\"")
		}
		p.WriteString(">")
		if c.raw {
			p.WriteString(c.text)
		} else {
			p.WriteString(esc(c.text))
		}
		p.WriteString("</td>")
	}
	p.WriteString("</tr>\n")
}
