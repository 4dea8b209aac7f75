package reports

// exploreMarkup is the explorer's part of its page: the controls, the
// filters, the diagram's frame, the state table, the trial's data (JSON,
// whose encoder escapes <, > and &, so it cannot end the script element)
// and the script that draws them.
func exploreMarkup(dataJSON string) string {
	return `<style>` + exploreStyle + `</style>
<div id="ex-controls" class="ex-bar">
<button id="ex-start" title="the first event">start</button>
<button id="ex-back" title="the previous event (←)">◀ step</button>
<button id="ex-play" title="play (space)">▶ play</button>
<button id="ex-pause" title="pause (space)">❚❚ pause</button>
<button id="ex-fwd" title="the next event (→)">step ▶</button>
<button id="ex-next-msg">next message</button>
<button id="ex-next-decide">next decision</button>
<button id="ex-next-fault">next fault</button>
<button id="ex-violation" class="bad">the violation</button>
<input id="ex-slider" type="range" min="0" max="0" value="0" aria-label="event">
<span id="ex-pos"></span>
</div>
<div id="ex-filters" class="ex-bar"></div>
<p id="ex-now"></p>
<div class="ex-main">
<div id="ex-diagram" tabindex="0" aria-label="message-sequence diagram around the cursor"></div>
<div class="ex-side">
<p id="ex-leaders"></p>
<table id="ex-state"><thead><tr><th>process</th><th>status</th><th>believed leader</th><th class="ex-term">term</th><th>participating</th><th>timers next to fire</th><th>last event</th></tr></thead><tbody></tbody></table>
</div>
</div>
<script type="application/json" id="explore-data">` + dataJSON + `</script>
<script>` + exploreScript + `</script>
`
}

const exploreStyle = `
body{max-width:none}
.ex-bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:6px 0}
.ex-bar button{font:inherit;padding:2px 8px}#ex-slider{flex:1;min-width:200px}
#ex-filters label{font-size:13px;margin-right:8px;white-space:nowrap}
.ex-main{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}
#ex-diagram{border:1px solid #ddd;overflow:hidden;outline:none}#ex-diagram:focus{border-color:#888}
#ex-diagram svg{display:block;font-family:system-ui,"Liberation Sans",Arial,sans-serif}
.ex-side{flex:1;min-width:420px}#ex-state td,#ex-state th{font-size:12px}
#ex-state tr.leads td{background:#fff1c2;font-weight:600}#ex-state tr.down td{color:#999}
#ex-now{font-family:monospace;font-size:13px;margin:4px 0}#ex-leaders{margin:0 0 6px}
.ex-future{opacity:.35}
`

// exploreScript draws the page from the data and moves its cursor. The
// state at the cursor is the trace's events up to it applied in order;
// snapshots every few hundred events make a jump cost at most that many.
// Only the rows around the cursor are drawn (an SVG rebuilt at each
// step), and each step's time is kept in __explore.stepMs for the test.
const exploreScript = `
(function(){
"use strict";
var D=JSON.parse(document.getElementById("explore-data").textContent);
var N=D.ev.length,n=D.n,EV={};D.evs.forEach(function(e,i){EV[e]=i;});
var ids=D.ids||null,byID={};if(ids)ids.forEach(function(v,p){byID[v]=p;});
var ROW=18,HEAD=40,BEFORE=14,AFTER=24,LOOK=800,LEFT=74;
var LANE=Math.max(40,Math.min(150,Math.floor(1000/Math.max(1,n))));
var W=LEFT+n*LANE+20,H=HEAD+(BEFORE+AFTER+1)*ROW+4;
var show=D.kinds.map(function(k,i){return !D.maint[i];}),showLost=true;
var vis=new Int32Array(0),rowOf=new Int32Array(N),cursor=0;
var X={stepMs:[],cursor:function(){return cursor;},violation:D.violation};window.__explore=X;
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return {"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;"}[c];});}
function str(i){return i>=0?D.strs[i]:"";}
function short(id){return id.length>12?id.slice(0,8):id;}
function pname(p){return D.names[p];}
function laneID(p){var m=/ \((id .*)\)$/.exec(D.names[p]);return m?m[1]:"";}
function leaderName(s){if(!s)return "none";var p=byID[s];return p!==undefined?D.names[p]:"id "+short(s);}
function fmtT(t){if(D.tns>0)return "t="+(+(t/D.tns).toFixed(3))+"T";return "t="+(+(t/1e6).toFixed(4))+"ms";}
function lostMsg(i){var e=D.ev[i];if(e===EV.lose||e===EV.drop)return true;if(e!==EV.send)return false;var j=D.pair[i];return j<0||D.ev[j]!==EV.recv;}
function visible(i){var k=D.k[i];if(k<0)return true;return show[k]&&(showLost||!lostMsg(i));}
function refilter(){var a=[];for(var i=0;i<N;i++){if(visible(i))a.push(i);rowOf[i]=a.length-1;}vis=Int32Array.from(a);
if(vis.length&&(rowOf[cursor]<0||vis[rowOf[cursor]]!==cursor))cursor=vis[Math.max(0,rowOf[cursor])];}
// The state of every process: status (0 not started, 1 up, 2 crashed,
// 3 paused), believed leader (a string's index), term, participating,
// decided in the current step, its last event.
var S={st:new Int8Array(n),lead:new Int32Array(n).fill(-1),term:new Float64Array(n),part:new Int8Array(n),dec:new Int8Array(n),last:new Int32Array(n).fill(-1)};
var CK=Math.max(256,Math.ceil(N*n/4e6)*256),snaps=[],at=-1;
function copy(){return {st:S.st.slice(),lead:S.lead.slice(),term:S.term.slice(),part:S.part.slice(),dec:S.dec.slice(),last:S.last.slice()};}
function restore(c){S.st.set(c.st);S.lead.set(c.lead);S.term.set(c.term);S.part.set(c.part);S.dec.set(c.dec);S.last.set(c.last);}
function apply(i){var e=D.ev[i],p=D.p[i],q=D.q[i];
if(e===EV.send){S.last[p]=i;if(!D.maint[D.k[i]]&&!S.dec[p])S.part[p]=1;if(D.terms)S.term[p]=Math.max(S.term[p],D.a[i]);return;}
if(e===EV.recv){S.last[q]=i;S.dec[q]=0;if(D.terms)S.term[q]=Math.max(S.term[q],D.a[i]);return;}
if(e===EV.drop||e===EV.lose||e===EV.dup||e===EV.fault)return;
S.last[p]=i;
if(e===EV.start)S.st[p]=1;
else if(e===EV.initiate){S.part[p]=1;S.dec[p]=0;}
else if(e===EV.timer)S.dec[p]=0;
else if(e===EV.decide){S.lead[p]=D.s[i];S.part[p]=0;S.dec[p]=1;}
else if(e===EV.crash){S.st[p]=2;S.part[p]=0;}
else if(e===EV.restart){S.st[p]=1;S.lead[p]=-1;S.part[p]=0;S.dec[p]=0;}
else if(e===EV.pause)S.st[p]=3;
else if(e===EV.resume)S.st[p]=1;}
(function(){for(var i=0;i<N;i++){if(i%CK===0)snaps.push(copy());apply(i);}snaps.push(copy());at=N-1;})();
// stateAt brings S to the state after event c.
function stateAt(c){if(c>=at&&c-at<CK){for(var i=at+1;i<=c;i++)apply(i);at=c;return;}
var s=Math.floor((c+1)/CK);restore(snaps[s]);for(var j=s*CK;j<=c;j++)apply(j);at=c;}
// Per process, its timer expirations and its crashes and restarts, for
// the timers that fire next.
var timers=[],bounds=[];for(var p=0;p<n;p++){timers.push([]);bounds.push([]);}
for(var i=0;i<N;i++){var e=D.ev[i];if(e===EV.timer)timers[D.p[i]].push(i);else if(e===EV.crash||e===EV.restart)bounds[D.p[i]].push(i);}
function after(a,c){var lo=0,hi=a.length;while(lo<hi){var m=(lo+hi)>>1;if(a[m]<=c)lo=m+1;else hi=m;}return lo;}
function nextTimers(p,c){var b=bounds[p],j=after(b,c),end=j<b.length?b[j]:N,a=timers[p],seen={},out=[];
for(var k=after(a,c);k<a.length&&a[k]<end&&out.length<4;k++){var name=str(D.s[a[k]]);if(!seen[name]){seen[name]=1;out.push(name+" at "+fmtT(D.t[a[k]]).slice(2));}}return out.join(", ");}
// A paused process still believes what it believed: the hazard of a
// paused leader is that it wakes up leading. A crashed one believes nothing.
function leads(p){return ids&&(S.st[p]===1||S.st[p]===3)&&S.lead[p]>=0&&D.strs[S.lead[p]]===ids[p];}
function describe(i){var e=D.evs[D.ev[i]],p=D.p[i],q=D.q[i],s=str(D.s[i]);
if(D.k[i]>=0)return e+" "+pname(p)+" → "+pname(q)+" "+s;
if(e==="decide")return pname(p)+" decides leader "+leaderName(s);
if(e==="timer")return pname(p)+"'s timer "+s+" fires";
if(e==="suspect")return pname(p)+" suspects "+pname(q);
if(e==="fault")return "fault: "+s;
if(e==="note")return pname(p)+" notes "+s;
return e+" "+pname(p);}
var ST=["not started","up","crashed","paused"];
var tbody=document.querySelector("#ex-state tbody");
if(!D.terms)document.querySelectorAll("#ex-state .ex-term").forEach(function(c){c.hidden=true;});
var rowsEl=[];for(var p=0;p<n;p++){var tr=document.createElement("tr");tr.id="ex-p"+p;tr.innerHTML="<td>"+esc(pname(p))+"</td><td></td><td></td><td"+(D.terms?"":" hidden")+"></td><td></td><td></td><td></td>";tbody.appendChild(tr);rowsEl.push(tr);}
function renderState(){var L=[];
for(var p=0;p<n;p++){var c=rowsEl[p].cells,l=leads(p);if(l)L.push(pname(p)+(S.st[p]===3?" (paused)":""));
rowsEl[p].className=(l?"leads":"")+(S.st[p]===2?" down":"");
c[1].textContent=ST[S.st[p]];c[2].textContent=S.lead[p]>=0?leaderName(D.strs[S.lead[p]])+(l?" (itself)":""):"none";
c[3].textContent=D.terms?String(S.term[p]):"";c[4].textContent=S.part[p]?"yes":"no";
c[5].textContent=S.st[p]===2?"":nextTimers(p,cursor);c[6].textContent=S.last[p]>=0?describe(S.last[p]):"";}
var le=document.getElementById("ex-leaders");
le.textContent=ids?(L.length?"Believe they lead: "+L.join(", "):"No process believes it leads."):"Identities unknown: who leads itself cannot be told.";
le.className=L.length>1?"bad":"";}
function x(p){return LEFT+(p+0.5)*LANE;}
function label(x1,y1,x2,y2,s,col){var tx=x1+(x2-x1)*0.3,ty=y1+(y2-y1)*0.3-2;
return '<text x="'+tx.toFixed(1)+'" y="'+ty.toFixed(1)+'" font-size="10" fill="'+col+'" stroke="#fff" stroke-width="3" paint-order="stroke" text-anchor="middle">'+esc(s)+'</text>';}
var PAL=["#0072b2","#009e73","#cc79a7","#e69f00","#56b4e9","#d55e00","#7a5195","#3d7a3d","#a05000","#444488"];
function col(k){return PAL[k%PAL.length];}
function render(){var cr=rowOf[cursor],r0=Math.max(0,cr-BEFORE),r1=Math.min(vis.length-1,r0+BEFORE+AFTER);
function y(r){return HEAD+(r-r0)*ROW+ROW/2;}
var b=[],top=HEAD,bot=H-2;
b.push('<svg xmlns="http://www.w3.org/2000/svg" width="'+W+'" height="'+H+'" viewBox="0 0 '+W+' '+H+'">');
b.push('<rect x="0" y="'+(y(cr)-ROW/2)+'" width="'+W+'" height="'+ROW+'" fill="#fff3b0"/>');
D.faults.forEach(function(f){var a=Math.max(rowOf[f.from]+(vis[rowOf[f.from]]===f.from?0:1),r0),z=Math.min(f.to<0?vis.length-1:rowOf[f.to],r1);
if(z<a)return;b.push('<rect class="ex-fault" x="'+LEFT+'" y="'+(y(a)-ROW/2)+'" width="'+n*LANE+'" height="'+(z-a+1)*ROW+'" fill="#d55e00" fill-opacity="0.13"><title>'+esc(f.label)+'</title></rect><text x="'+(LEFT+n*LANE+2)+'" y="'+(y(a)+3)+'" font-size="9" fill="#a04000" writing-mode="tb">'+esc(f.label)+'</text>');});
for(var p=0;p<n;p++){b.push('<line x1="'+x(p)+'" y1="'+(HEAD-4)+'" x2="'+x(p)+'" y2="'+bot+'" stroke="#bbb"/><text x="'+x(p)+'" y="14" font-size="11" text-anchor="middle" font-weight="600">p'+p+'</text>');
if(ids)b.push('<text x="'+x(p)+'" y="28" font-size="10" text-anchor="middle" fill="#555">'+esc(laneID(p))+'</text>');}
var last=null;
for(var r=r0;r<=r1;r++){var i=vis[r];if(D.t[i]!==last){b.push('<text x="'+(LEFT-6)+'" y="'+(y(r)+3)+'" font-size="10" text-anchor="end" fill="#555">'+fmtT(D.t[i]).slice(2)+'</text>');last=D.t[i];}
b.push('<rect class="ex-row" data-i="'+i+'" x="0" y="'+(y(r)-ROW/2)+'" width="'+W+'" height="'+ROW+'" fill="transparent"/>');}
b.push('<g>');for(var r=Math.max(0,r0-LOOK);r<=r1;r++){var i=vis[r];if(D.k[i]<0)continue;var e=D.ev[i];
if(e===EV.send){var j=D.pair[i],c=col(D.k[i]),fut=i>cursor?' class="ex-future"':'';
if(j>=0&&visible(j)){var er=rowOf[j];if(er<r0)continue;if(r<r0&&er<r0)continue;
var y1=y(r),y2=y(er),x1=x(D.p[i]),x2=x(D.q[i]);var cy1=Math.max(y1,top),cy2=Math.min(y2,bot);
var fx1=x1+(x2-x1)*(y2===y1?0:(cy1-y1)/(y2-y1)),fx2=x1+(x2-x1)*(y2===y1?1:(cy2-y1)/(y2-y1));
var lost=D.ev[j]!==EV.recv;
b.push('<g'+fut+'><line x1="'+fx1.toFixed(1)+'" y1="'+cy1.toFixed(1)+'" x2="'+fx2.toFixed(1)+'" y2="'+cy2.toFixed(1)+'" stroke="'+c+'" stroke-width="1.4"'+(lost?' stroke-dasharray="4 3"':'')+'/>');
if(cy2===y2)b.push(lost?'<path d="M'+(x2-4)+','+(y2-4)+'l8,8m0,-8l-8,8" stroke="#c00" stroke-width="1.5"/>':'<circle cx="'+x2+'" cy="'+y2+'" r="2.5" fill="'+c+'"/>');
b.push(label(fx1,cy1,fx2,cy2,str(D.s[i]),c)+'</g>');}
else if(r>=r0&&j<0&&showLost){var x1=x(D.p[i]),y1=y(r),x2=(x1+x(D.q[i]))/2,y2=y1+ROW;
b.push('<g'+fut+'><line x1="'+x1+'" y1="'+y1+'" x2="'+x2+'" y2="'+y2+'" stroke="'+c+'" stroke-dasharray="4 3"/><path d="M'+(x2-3)+','+(y2-3)+'l6,6m0,-6l-6,6" stroke="#c00"/>'+label(x1,y1,x2,y2,str(D.s[i])+" (lost)",c)+'</g>');}}
else if(r>=r0&&e===EV.recv&&D.pair[i]>=0&&rowOf[D.pair[i]]<Math.max(0,r0-LOOK)){var x2=x(D.q[i]),y2=y(r),x1=x(D.p[i]);
b.push('<line x1="'+x1+'" y1="'+top+'" x2="'+x2+'" y2="'+y2+'" stroke="'+col(D.k[i])+'" stroke-width="1.4"/>');}}
b.push('</g>');
for(var r=r0;r<=r1;r++){var i=vis[r],e=D.evs[D.ev[i]],px=x(D.p[i]),py=y(r),s=str(D.s[i]),g=i>cursor?'<g class="ex-future">':'<g>';
if(e==="initiate")b.push(g+'<path d="M'+px+','+(py-5)+'l5,8h-10z" fill="#333"/><text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10">initiates</text></g>');
else if(e==="decide")b.push(g+'<circle cx="'+px+'" cy="'+py+'" r="4" fill="#000"/><text x="'+(px+11)+'" y="'+(py+3)+'" font-size="10" font-weight="600">leader '+esc(short(s))+'</text></g>');
else if(e==="timer")b.push(g+'<rect x="'+(px-3.5)+'" y="'+(py-3.5)+'" width="7" height="7" fill="#fff" stroke="#000"/><text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10">'+esc(s)+'</text></g>');
else if(e==="suspect")b.push(g+'<path d="M'+(px-5)+','+py+'h10" stroke="#e69f00" stroke-width="3"/><text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10">suspects p'+D.q[i]+'</text></g>');
else if(e==="crash")b.push(g+'<path d="M'+(px-5)+','+(py-5)+'l10,10m0,-10l-10,10" stroke="#c00" stroke-width="2"/><text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10" fill="#c00">crashes</text></g>');
else if(e==="restart"||e==="pause"||e==="resume"||e==="start")b.push(g+'<circle cx="'+px+'" cy="'+py+'" r="3" fill="#fff" stroke="#333"/><text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10">'+e+'</text></g>');
else if(e==="fault")b.push(g+'<text x="'+LEFT+'" y="'+(py+3)+'" font-size="10" fill="#a04000">fault: '+esc(s)+'</text></g>');
else if(e==="note")b.push(g+'<text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10" fill="#555">'+esc(s)+'</text></g>');
else if(e==="dup")b.push(g+'<text x="'+(px+7)+'" y="'+(py+3)+'" font-size="10">dup '+esc(s)+'</text></g>');
if(i===D.violation)b.push('<circle class="ex-violation" cx="'+px+'" cy="'+py+'" r="9" fill="none" stroke="#c00" stroke-width="2.5"/>');}
b.push('</svg>');diagram.innerHTML=b.join("");
slider.value=cursor;pos.textContent="event "+(cursor+1)+" of "+N+", "+fmtT(D.t[cursor]);
now.textContent=fmtT(D.t[cursor])+"  "+describe(cursor)+(cursor===D.violation?"   ◀ the violation: "+D.violText:"");}
var diagram=document.getElementById("ex-diagram"),slider=document.getElementById("ex-slider"),pos=document.getElementById("ex-pos"),now=document.getElementById("ex-now");
diagram.style.width=W+"px";diagram.style.height=H+"px";slider.max=Math.max(0,N-1);
// go moves the cursor to event c (the nearest shown at or before it),
// brings the state there and redraws; it keeps the step's time.
function go(c){var t0=performance.now();c=Math.max(0,Math.min(N-1,c));if(!vis.length)return;
var r=rowOf[c];cursor=vis[Math.max(0,r)];stateAt(cursor);renderState();render();void diagram.offsetHeight;
X.stepMs.push(performance.now()-t0);}
function step(d){var r=rowOf[cursor]+d;if(r>=0&&r<vis.length)go(vis[r]);}
function seek(test){for(var r=rowOf[cursor]+1;r<vis.length;r++){if(test(vis[r])){go(vis[r]);return true;}}return false;}
var isFault=function(i){var e=D.ev[i];if(e===EV.fault||e===EV.crash||e===EV.restart||e===EV.pause||e===EV.resume)return true;
return D.faults.some(function(f){return f.from===i;});};
var timer=null;function pause(){if(timer){clearInterval(timer);timer=null;}}
function play(){if(timer)return;timer=setInterval(function(){if(rowOf[cursor]>=vis.length-1)pause();else step(1);},200);}
function on(id,f){document.getElementById(id).addEventListener("click",f);}
on("ex-start",function(){go(0);});on("ex-back",function(){step(-1);});on("ex-fwd",function(){step(1);});
on("ex-play",play);on("ex-pause",pause);
on("ex-next-msg",function(){seek(function(i){return D.k[i]>=0;});});
on("ex-next-decide",function(){seek(function(i){return D.ev[i]===EV.decide;});});
on("ex-next-fault",function(){seek(isFault);});
var vb=document.getElementById("ex-violation");
if(D.violation<0){vb.disabled=true;vb.title="no violation known for this trial (explore the run's directory for its verdict)";}
else{vb.title=D.violText;on("ex-violation",function(){go(D.violation);});}
slider.addEventListener("input",function(){go(+slider.value);});
diagram.addEventListener("click",function(ev){var t=ev.target.closest&&ev.target.closest("[data-i]");if(t)go(+t.getAttribute("data-i"));});
diagram.addEventListener("wheel",function(ev){ev.preventDefault();step(ev.deltaY>0?3:-3);},{passive:false});
document.addEventListener("keydown",function(ev){if(ev.target.tagName==="INPUT"&&ev.target.type!=="checkbox")return;
if(ev.key==="ArrowRight"){step(1);ev.preventDefault();}else if(ev.key==="ArrowLeft"){step(-1);ev.preventDefault();}
else if(ev.key===" "){if(timer)pause();else play();ev.preventDefault();}});
var fl=document.getElementById("ex-filters");fl.appendChild(document.createTextNode("Show: "));
function box(cls,text,checked,f){var l=document.createElement("label"),c=document.createElement("input");c.type="checkbox";c.className=cls;c.checked=checked;
c.addEventListener("change",function(){f(c.checked);refilter();go(cursor);});l.appendChild(c);l.appendChild(document.createTextNode(" "+text));fl.appendChild(l);return c;}
D.kinds.forEach(function(k,i){box("ex-kind",k+(D.maint[i]?" (maintenance)":""),show[i],function(v){show[i]=v;}).setAttribute("data-kind",k);});
box("ex-lost","lost messages",true,function(v){showLost=v;});
// #violation or #event=N in the address opens the page there.
var h=/^#(violation|event=(\d+))$/.exec(location.hash);
refilter();go(h?(h[2]?+h[2]-1:Math.max(0,D.violation)):0);X.stepMs=[];
document.body.setAttribute("data-explore-ready","1");
})();
`
