//! The self-contained HTML player of `mbsim animate`: one file, inline SVG and script, no
//! external resources. The frames' points are embedded as JSON (x, y, z; z = 0 for a planar
//! drawing) and projected in the page with the same orthographic camera as the GIF
//! ([`super::camera`], the formulas repeated in the script): drag turns a spatial drawing
//! (azimuth, elevation), shift-drag or a planar drawing's drag pans, the wheel zooms, a
//! double click resets, and the preset views are buttons. The time slider, the play button and
//! an orange tick per located event under the slider (a click jumps to it; the frame nearest to
//! an event names it) complete it.

use super::Frames;
use super::camera::{Camera, PRESETS};

/// The page for `frames`, starting from `camera`'s view.
pub fn page(frames: &Frames, camera: &Camera, fps: u32, model: &str) -> String {
    let points: Vec<String> = frames
        .points
        .iter()
        .map(|f| {
            let xyz: Vec<String> = f
                .iter()
                .map(|p| format!("[{:.6e},{:.6e},{:.6e}]", p[0], p[1], p[2]))
                .collect();
            format!("[{}]", xyz.join(","))
        })
        .collect();
    let times: Vec<String> = frames.t.iter().map(|t| format!("{t:.6e}")).collect();
    let segments: Vec<String> = frames
        .segments
        .iter()
        .map(|(a, b)| format!("[{a},{b}]"))
        .collect();
    let names: Vec<String> = frames.names.iter().map(|n| json_string(n)).collect();
    let events: Vec<String> = frames
        .events
        .iter()
        .map(|e| format!("[{:.9e},{}]", e.t, json_string(&e.label)))
        .collect();
    let presets: Vec<String> = PRESETS
        .iter()
        .map(|(name, az, el)| format!("{name}:[{az},{el}]"))
        .collect();
    let buttons: String = match camera.dimension {
        3 => PRESETS
            .iter()
            .map(|(name, _, _)| format!("<button onclick=\"preset('{name}')\">{name}</button>"))
            .collect(),
        _ => String::new(),
    };
    PLAYER
        .replace("{MODEL}", &html_escape(model))
        .replace("{BUTTONS}", &buttons)
        .replace("{DIM}", &camera.dimension.to_string())
        .replace("{UP}", &camera.up.to_string())
        .replace("{AZ}", &format!("{:.6}", camera.azimuth.to_degrees()))
        .replace("{EL}", &format!("{:.6}", camera.elevation.to_degrees()))
        .replace("{PRESETS}", &presets.join(","))
        .replace("{DELAY}", &(1000 / fps).to_string())
        .replace("{LAST}", &(frames.t.len() - 1).to_string())
        .replace("{TIMES}", &times.join(","))
        .replace("{POINTS}", &points.join(","))
        .replace("{SEGMENTS}", &segments.join(","))
        .replace("{NAMES}", &names.join(","))
        .replace("{EVENTS}", &events.join(","))
}

/// A JSON string literal (names and event labels are identifiers and words, but quote anyway).
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The player's template. Screen coordinates are normalized by the half-extent R of the whole
/// run (so every view of a spatial drawing fits the square box); y is flipped by drawing at −u.
const PLAYER: &str = r##"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{MODEL}: animation</title>
<style>body{font-family:sans-serif;margin:1em} svg{border:1px solid #ccc;width:720px;max-width:100%;background:#fff;touch-action:none;cursor:grab}
#ticks{position:relative;width:520px;height:14px;display:inline-block;vertical-align:middle}
#ticks span{position:absolute;top:0;width:3px;height:14px;background:#e6781e;cursor:pointer}
#event{color:#e6781e;margin-left:1em}</style>
</head><body>
<h3>{MODEL}</h3>
<svg id="view" xmlns="http://www.w3.org/2000/svg"></svg>
<div>{BUTTONS} <span id="hint"></span></div>
<div><button id="play">play</button>
<input id="slider" type="range" min="0" max="{LAST}" value="0" style="width:520px">
<span id="time"></span><span id="event"></span></div>
<div><span style="display:inline-block;width:4.2em"></span><span id="ticks"></span></div>
<script>
const T=[{TIMES}], P=[{POINTS}], S=[{SEGMENTS}], N=[{NAMES}], E=[{EVENTS}];
const DIM={DIM}, UP={UP}, PRESETS={{PRESETS}}, D2R=Math.PI/180;
let az={AZ}*D2R, el={EL}*D2R, zoom=1, pan=[0,0];
const svg=document.getElementById("view"), ns="http://www.w3.org/2000/svg";
function upright(p){return UP==0?[p[1],p[2],p[0]]:UP==1?[p[0],-p[2],p[1]]:p;}
function proj(p){if(DIM==2)return[p[0],p[1],0];const[x,y,z]=upright(p);
 const sa=Math.sin(az),ca=Math.cos(az),se=Math.sin(el),ce=Math.cos(el);
 return[-sa*x+ca*y,-se*ca*x-se*sa*y+ce*z,ce*ca*x+ce*sa*y+se*z];}
// The run's box: centre C and half-extent R (the half-diagonal for a spatial drawing).
const lo=[Infinity,Infinity,Infinity], hi=[-Infinity,-Infinity,-Infinity];
P.forEach(f=>f.forEach(p=>p.forEach((v,i)=>{if(isFinite(v)){lo[i]=Math.min(lo[i],v);hi[i]=Math.max(hi[i],v);}})));
for(let i=0;i<3;i++){if(!(lo[i]<=hi[i])){lo[i]=-1;hi[i]=1;}}
const C=lo.map((v,i)=>(v+hi[i])/2);
const R=Math.max(1e-9,DIM==2?Math.max(hi[0]-lo[0],hi[1]-lo[1])/2:Math.hypot(hi[0]-lo[0],hi[1]-lo[1],hi[2]-lo[2])/2)*1.08;
const W=DIM==2?Math.max(0.25,(hi[0]-lo[0])/2*1.08/R):1, H=DIM==2?Math.max(0.25,(hi[1]-lo[1])/2*1.08/R):1;
svg.setAttribute("viewBox",(-W)+" "+(-H)+" "+(2*W)+" "+(2*H));
const stroke=0.012, font=0.045;
const lines=S.map(()=>{const l=document.createElementNS(ns,"line");l.setAttribute("stroke-width",stroke);l.setAttribute("stroke-linecap","round");svg.appendChild(l);return l;});
const dots=N.map(()=>{const c=document.createElementNS(ns,"circle");c.setAttribute("r",stroke);c.setAttribute("fill","#d62728");svg.appendChild(c);return c;});
const labels=N.map(n=>{const t=document.createElementNS(ns,"text");t.textContent=n;t.setAttribute("font-size",font);svg.appendChild(t);return t;});
const axes=DIM==3?["x","y","z"].map((n,i)=>{const l=document.createElementNS(ns,"line"),t=document.createElementNS(ns,"text");
 l.setAttribute("stroke",["#c82828","#289628","#2828c8"][i]);l.setAttribute("stroke-width",stroke/2);t.textContent=n;t.setAttribute("font-size",font*0.8);
 svg.appendChild(l);svg.appendChild(t);return[l,t];}):[];
const slider=document.getElementById("slider"), time=document.getElementById("time"), evt=document.getElementById("event");
const nearest=t=>{let b=0;T.forEach((s,k)=>{if(Math.abs(s-t)<Math.abs(T[b]-t))b=k;});return b;};
const eventAt={};E.forEach(([t,l])=>{const k=nearest(t);(eventAt[k]=eventAt[k]||[]).push(l);});
const ticks=document.getElementById("ticks"), t0=T[0], t1=T[T.length-1];
E.forEach(([t,l])=>{const s=document.createElement("span");s.style.left=(t1>t0?100*(t-t0)/(t1-t0):0)+"%";s.title=l+" at t = "+t.toPrecision(8);
 s.onclick=()=>{slider.value=nearest(t);show(+slider.value);};ticks.appendChild(s);});
function screen(p){const c=proj(C),q=proj(p);return[(q[0]-c[0])/R*zoom+pan[0],-((q[1]-c[1])/R*zoom)+pan[1],q[2]];}
function show(k){const p=P[k].map(screen);
 const depth=S.map(([a,b])=>(p[a][2]+p[b][2])/2), order=S.map((_,i)=>i).sort((i,j)=>depth[i]-depth[j]);
 const dmin=Math.min(...depth), dmax=Math.max(...depth);
 order.forEach((s,i)=>{const[a,b]=S[s],l=lines[i];l.setAttribute("x1",p[a][0]);l.setAttribute("y1",p[a][1]);l.setAttribute("x2",p[b][0]);l.setAttribute("y2",p[b][1]);
  const far=dmax>dmin?(dmax-depth[s])/(dmax-dmin):0;l.setAttribute("stroke","#1f4fd6");l.setAttribute("stroke-opacity",1-0.6*far);});
 p.forEach(([x,y],i)=>{dots[i].setAttribute("cx",x);dots[i].setAttribute("cy",y);labels[i].setAttribute("x",x+stroke);labels[i].setAttribute("y",y-stroke);});
 axes.forEach(([l,t],i)=>{const u=[0,0,0];u[i]=1;const q=proj(u),o=[-W+0.15,H-0.15],e=[o[0]+0.1*q[0],o[1]-0.1*q[1]];
  l.setAttribute("x1",o[0]);l.setAttribute("y1",o[1]);l.setAttribute("x2",e[0]);l.setAttribute("y2",e[1]);t.setAttribute("x",e[0]);t.setAttribute("y",e[1]);});
 time.textContent="t = "+T[k].toPrecision(5);
 evt.textContent=eventAt[k]?"event: "+eventAt[k].join(", "):"";}
let timer=null;
slider.oninput=()=>show(+slider.value);
document.getElementById("play").onclick=()=>{if(timer){clearInterval(timer);timer=null;return;}
 timer=setInterval(()=>{slider.value=(+slider.value+1)%(+slider.max+1);show(+slider.value);},{DELAY});};
function preset(name){[az,el]=PRESETS[name].map(v=>v*D2R);zoom=1;pan=[0,0];show(+slider.value);}
let drag=null;
svg.onpointerdown=e=>{drag=[e.clientX,e.clientY,e.shiftKey||DIM==2];svg.setPointerCapture(e.pointerId);};
svg.onpointerup=()=>{drag=null;};
svg.onpointermove=e=>{if(!drag)return;const dx=e.clientX-drag[0],dy=e.clientY-drag[1];drag[0]=e.clientX;drag[1]=e.clientY;
 if(drag[2]){const s=2*W/svg.clientWidth;pan=[pan[0]+dx*s,pan[1]+dy*s];}
 else{az-=dx*0.01;el=Math.max(-Math.PI/2,Math.min(Math.PI/2,el+dy*0.01));}
 show(+slider.value);};
svg.onwheel=e=>{e.preventDefault();zoom*=Math.exp(-e.deltaY*0.0015);show(+slider.value);};
svg.ondblclick=()=>{zoom=1;pan=[0,0];if(DIM==3){az={AZ}*D2R;el={EL}*D2R;}show(+slider.value);};
document.getElementById("hint").textContent=DIM==3?"drag: turn, shift-drag: pan, wheel: zoom, double click: reset":"drag: pan, wheel: zoom, double click: reset";
show(0);
</script></body></html>
"##;
