package reports

import (
	"fmt"
	"html"
	"html/template"
	"io"
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
.verdict.fail{background:#fff1f0;border:1px solid #e4a0a0}.verdict.expected{background:#f3f3f3;border:1px solid #c8c8c8;color:#444}.verdict ul{margin:0;padding-left:20px}.verdict li{margin:2px 0}
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

// page is one HTML document under construction: a tree of components —
// sections and headings, paragraphs of text runs (plain, code, bold,
// links), lists, sortable tables, chart figures and their legends, folds,
// preformatted lines and trusted SVG drawn by this package — that
// pageTemplate renders with html/template, which escapes every text and
// attribute. The report, the comparison and the history pages are built
// from the same components.
type page struct {
	Title string
	Root  node
	stack []*node
}

// node is one component of a page; Kind says which, and which fields it
// uses.
type node struct {
	Kind     string // section, h2, h3, p, ul, table, charts, figure, legend, details, pre, svg, nav
	ID       string
	Class    string
	Open     bool    // details
	Runs     []run   // h2, h3, p, the summary of details, nav links
	Items    [][]run // ul
	Legend   []legendItem
	Table    *tableView
	SVG      template.HTML // figure, svg: drawn by this package, escaped as it was drawn
	Lines    []preLine
	Children []*node
}

// run is a piece of inline text: plain, code, bold, in a class, a link, or
// a checkbox (Check names its class) with the text as its label.
type run struct {
	Text, Href, Class, Check string
	Code, Bold               bool
}

// preLine is one line of preformatted text: Class hides or marks it, Bold
// emphasises it.
type preLine struct {
	Text, Class string
	Bold        bool
}

type legendItem struct {
	Label  string
	Swatch template.HTML
}

// Text-run constructors.
func txt(s string) run                 { return run{Text: s} }
func code(s string) run                { return run{Text: s, Code: true} }
func bold(s string) run                { return run{Text: s, Bold: true} }
func link(href, s string) run          { return run{Text: s, Href: href} }
func span(class, s string) run         { return run{Text: s, Class: class} }
func txtf(f string, args ...any) run   { return run{Text: fmt.Sprintf(f, args...)} }
func boldf(f string, args ...any) run  { return run{Text: fmt.Sprintf(f, args...), Bold: true} }
func checkbox(class, label string) run { return run{Text: label, Check: class} }

func newPage(title string) *page {
	p := &page{Title: title}
	p.stack = []*node{&p.Root}
	return p
}

// add appends n to the component being built.
func (p *page) add(n *node) *node {
	top := p.stack[len(p.stack)-1]
	top.Children = append(top.Children, n)
	return n
}

// within builds the children of n with body.
func (p *page) within(n *node, body func()) {
	p.add(n)
	p.stack = append(p.stack, n)
	defer func() { p.stack = p.stack[:len(p.stack)-1] }()
	body()
}

func (p *page) section(id string, body func()) { p.within(&node{Kind: "section", ID: id}, body) }
func (p *page) h2(id string, runs ...run)      { p.add(&node{Kind: "h2", ID: id, Runs: runs}) }
func (p *page) h3(id string, runs ...run)      { p.add(&node{Kind: "h3", ID: id, Runs: runs}) }
func (p *page) para(class string, runs ...run) { p.add(&node{Kind: "p", Class: class, Runs: runs}) }
func (p *page) note(s string)                  { p.para("note", txt(s)) }
func (p *page) list(class string, items [][]run) {
	if len(items) > 0 {
		p.add(&node{Kind: "ul", Class: class, Items: items})
	}
}
func (p *page) nav(links ...run)   { p.add(&node{Kind: "nav", Runs: links}) }
func (p *page) charts(body func()) { p.within(&node{Kind: "charts"}, body) }
func (p *page) pre(class string, lines []preLine) {
	p.add(&node{Kind: "pre", Class: class, Lines: lines})
}
func (p *page) box(id, class string, body func()) {
	p.within(&node{Kind: "div", ID: id, Class: class}, body)
}

// details is a fold: summary always shown, body when opened.
func (p *page) details(id string, open bool, summary []run, body func()) {
	p.within(&node{Kind: "details", ID: id, Open: open, Runs: summary}, body)
}

// figure places a chart; "" (a chart not drawn) places nothing.
func (p *page) figure(svg string) {
	if svg != "" {
		p.add(&node{Kind: "figure", SVG: template.HTML(svg)}) // #nosec: drawn by this package, text escaped when drawn
	}
}

// figures places charts side by side; those not drawn ("") are left out.
func (p *page) figures(svgs []string) {
	p.charts(func() {
		for _, svg := range svgs {
			p.figure(svg)
		}
	})
}

// svg places a drawing of this package inline (diagrams, timelines).
func (p *page) svg(svg string) {
	if svg != "" {
		p.add(&node{Kind: "svg", SVG: template.HTML(svg)})
	}
}

// legend places the legend of a chart whose series i is drawn in
// paletteColor(i) with glyphs[i%8].
func (p *page) legend(labels []string) {
	items := make([]legendItem, len(labels))
	for i, l := range labels {
		items[i] = legendItem{Label: l, Swatch: template.HTML(legendSwatch(i))}
	}
	p.add(&node{Kind: "legend", Legend: items})
}

// write renders the page to out.
func (p *page) write(out io.Writer) error {
	s, err := p.finish()
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, s)
	return err
}

// finish renders the page.
func (p *page) finish() (string, error) {
	var b strings.Builder
	err := pageTemplate.Execute(&b, struct {
		Title        string
		Root         *node
		Style        template.CSS
		Script, Hook template.JS
	}{p.Title, &p.Root, template.CSS(pageStyle), template.JS(pageScript), template.JS(errorHook)})
	return b.String(), err
}

// pageTemplate is every page's document: its head with the style sheet and
// the error hook, the title, the components, the script.
var pageTemplate = template.Must(template.Must(template.New("page").Parse(pageComponents)).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<script>{{.Hook}}</script>
<style>{{.Style}}</style>
</head>
<body>
<div id="js-errors" hidden></div>
<h1>{{.Title}}</h1>
{{range .Root.Children}}{{template "node" .}}{{end}}<script>{{.Script}}</script>
</body>
</html>
`))

// pageComponents are the templates of the components a page is made of.
const pageComponents = `{{define "runs"}}{{range .}}{{if .Check}}<label><input type="checkbox" class="{{.Check}}"> {{.Text}}</label>{{else if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else if .Code}}<code>{{.Text}}</code>{{else if .Bold}}<b{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</b>{{else if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{end}}
{{define "node"}}{{if eq .Kind "section"}}<section{{with .ID}} id="{{.}}"{{end}}>
{{range .Children}}{{template "node" .}}{{end}}</section>
{{else if eq .Kind "div"}}<div{{with .Class}} class="{{.}}"{{end}}{{with .ID}} id="{{.}}"{{end}}>
{{range .Children}}{{template "node" .}}{{end}}</div>
{{else if eq .Kind "h2"}}<h2{{with .ID}} id="{{.}}"{{end}}>{{template "runs" .Runs}}</h2>
{{else if eq .Kind "h3"}}<h3{{with .ID}} id="{{.}}"{{end}}>{{template "runs" .Runs}}</h3>
{{else if eq .Kind "p"}}<p{{with .Class}} class="{{.}}"{{end}}>{{template "runs" .Runs}}</p>
{{else if eq .Kind "nav"}}<nav>{{template "runs" .Runs}}</nav>
{{else if eq .Kind "ul"}}<ul{{with .Class}} class="{{.}}"{{end}}>
{{range .Items}}<li>{{template "runs" .}}</li>
{{end}}</ul>
{{else if eq .Kind "charts"}}<div class="charts">
{{range .Children}}{{template "node" .}}{{end}}</div>
{{else if eq .Kind "figure"}}<figure>
{{.SVG}}</figure>
{{else if eq .Kind "svg"}}{{.SVG}}{{else if eq .Kind "legend"}}<ul class="legend">{{range .Legend}}<li>{{.Swatch}}{{.Label}}</li>{{end}}</ul>
{{else if eq .Kind "details"}}<details{{with .ID}} id="{{.}}"{{end}}{{if .Open}} open{{end}}><summary>{{template "runs" .Runs}}</summary>
{{range .Children}}{{template "node" .}}{{end}}</details>
{{else if eq .Kind "pre"}}<pre{{with .Class}} class="{{.}}"{{end}}>{{range .Lines}}{{if .Bold}}<b class="{{.Class}}">{{.Text}}</b>
{{else if .Class}}<span class="{{.Class}}">{{.Text}}
</span>{{else}}{{.Text}}
{{end}}{{end}}</pre>
{{else if eq .Kind "table"}}{{template "table" .Table}}{{end}}{{end}}
{{define "table"}}<table{{with .ID}} id="{{.}}"{{end}} class="{{.Class}}">
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{with .ID}} id="{{.}}"{{end}}{{with .Class}} class="{{.}}"{{end}}>{{range .Cells}}<td{{with .Class}} class="{{.}}"{{end}}{{if .HasV}} data-v="{{.V}}"{{end}}{{with .Title}} title="{{.}}"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else if .HTML}}{{.HTML}}{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}`

// tableView is a table as the template renders it.
type tableView struct {
	ID, Class string
	Head      []string
	Rows      []rowView
}

type rowView struct {
	ID, Class string
	Cells     []cellView
}

type cellView struct {
	Text, Href, Class, Title, V string
	HasV                        bool
	HTML                        template.HTML
}

// esc escapes text for HTML content and attributes, where an SVG of this
// package is drawn.
func esc(s string) string { return html.EscapeString(s) }

// table is a table's cell: plain text, a link (href), or a small drawing
// of this package (svg); numeric cells are right-aligned and sort by v.
type cell struct {
	text    string
	href    string
	svg     string // drawn by this package
	num     bool   // right-aligned, sorted by v
	v       float64
	hasV    bool
	title   string
	classes string
}

func textCell(s string) cell { return cell{text: s} }

func linkCell(href, s string) cell { return cell{text: s, href: href} }

func intCell(n int) cell { return cell{text: strconv.Itoa(n), num: true, v: float64(n), hasV: true} }

// optCell is an optional figure with the given decimals, "-" when unset.
func optCell(o Opt[float64], decimals int) cell {
	if !o.IsSet() {
		return cell{text: "-", num: true}
	}
	return cell{text: fixedText(o.Get(), decimals), num: true, v: o.Get(), hasV: true}
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

// tableID places a table with an id (for #sort= links and anchors).
func (p *page) tableID(id, class string, head []string, rows [][]cell) {
	rs := make([]tableRow, len(rows))
	for i, r := range rows {
		rs[i] = tableRow{cells: r}
	}
	p.tableRows(id, class, head, rs)
}

// tableRow is a row with its own id and class.
type tableRow struct {
	id, class string
	cells     []cell
}

func (p *page) tableRows(id, class string, head []string, rows []tableRow) {
	t := &tableView{ID: id, Class: class, Head: head}
	for _, r := range rows {
		rv := rowView{ID: r.id, Class: r.class}
		for _, c := range r.cells {
			cv := cellView{Text: c.text, Href: c.href, Title: c.title, Class: c.classes}
			if c.num {
				cv.Class = strings.TrimSpace("n " + c.classes)
			}
			if c.hasV {
				cv.V, cv.HasV = strconv.FormatFloat(c.v, 'g', -1, 64), true
			}
			if c.svg != "" {
				cv.HTML = template.HTML(c.svg) // drawn by this package
			}
			rv.Cells = append(rv.Cells, cv)
		}
		t.Rows = append(t.Rows, rv)
	}
	p.add(&node{Kind: "table", Table: t})
}
