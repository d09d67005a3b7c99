"""A replay as one self-contained HTML page: every position as inline SVG, one small inline script, nothing else.

The page works offline and from a file: no image, font, stylesheet or script is
loaded from anywhere. Controls: first, previous, next, last, play/pause, a slider
and the arrow keys (Home and End too); each step shows its log lines and the
step counter. A deal cut off by a repeated position has the two equal positions
marked and the steps between them shaded, on the slider's strip and on the frames.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from experiments.replay.build import Replay

STYLE = """
body{font-family:sans-serif;margin:16px;color:#1d2330;background:#fff}
h1{font-size:18px;margin:0 0 8px}
#controls{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin:8px 0}
#controls button{font-size:14px;padding:4px 10px}
.track{display:inline-flex;flex-direction:column;width:440px}
#slider{width:100%;margin:0}
#strip{position:relative;height:8px;background:#e6e9ef;margin:2px 8px 0;border-radius:4px}
#strip .cycle{position:absolute;top:0;height:8px;background:#f3c27a}
#strip .equal{position:absolute;top:-3px;width:3px;height:14px;background:#c0262d}
.frame{display:none}
.frame.on{display:block}
.frame.cycle svg{outline:4px solid #f3c27a}
.frame.equal svg{outline:4px solid #c0262d}
.note{font-weight:bold;color:#a3392f;margin:4px 0}
.lines{font-family:monospace;font-size:13px;white-space:pre-wrap;background:#f1f4f8;padding:6px 8px;
 border-radius:4px;margin:6px 0;min-height:1.2em}
"""

SCRIPT = """
(function(){
var frames=document.querySelectorAll('.frame'),last=frames.length-1,at=0,timer=null;
var slider=document.getElementById('slider'),counter=document.getElementById('counter'),
    play=document.getElementById('play');
function show(k){k=Math.max(0,Math.min(last,k));frames[at].classList.remove('on');
  frames[k].classList.add('on');at=k;slider.value=k;counter.textContent='step '+k+' / '+last;
  if(k===last)stop();}
function stop(){if(timer){clearInterval(timer);timer=null;}play.textContent='play';}
function toggle(){if(timer){stop();return;}if(at===last)show(0);
  timer=setInterval(function(){show(at+1);},400);play.textContent='pause';}
document.getElementById('first').onclick=function(){stop();show(0);};
document.getElementById('prev').onclick=function(){stop();show(at-1);};
document.getElementById('next').onclick=function(){stop();show(at+1);};
document.getElementById('last').onclick=function(){stop();show(last);};
play.onclick=toggle;
slider.oninput=function(){stop();show(parseInt(slider.value,10));};
document.addEventListener('keydown',function(e){
  var keys={ArrowLeft:at-1,ArrowRight:at+1,ArrowUp:at-1,ArrowDown:at+1,Home:0,End:last};
  if(e.key===' '){e.preventDefault();toggle();return;}
  if(e.key in keys){e.preventDefault();stop();show(keys[e.key]);}});
show(0);
})();
"""


def page_html(replay: Replay) -> str:
    """The replay's page as one HTML document."""
    last = replay.steps
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(replay.title)}</title>",
             f"<style>{STYLE}</style></head><body>", f"<h1>{escape(replay.title)}</h1>",
             f"<p>{escape(replay.result).replace(chr(10), '<br>')}</p>",
             '<div id="controls"><button id="first" title="first (Home)">first</button>'
             '<button id="prev" title="previous (left arrow)">previous</button>'
             '<button id="play" title="play or pause (space)">play</button>'
             '<button id="next" title="next (right arrow)">next</button>'
             '<button id="last" title="last (End)">last</button>'
             f'<span class="track"><input type="range" id="slider" min="0" max="{last}" value="0" '
             f'aria-label="step">{_strip(replay)}</span><span id="counter">step 0 / {last}</span></div>']
    parts.append('<div id="frames">')
    for step, (svg, lines) in enumerate(zip(replay.frames, replay.lines, strict=True)):
        css, note = _cycle_class(replay, step)
        parts.append(f'<div class="frame{css}" data-step="{step}">')
        if note:
            parts.append(f'<div class="note">{escape(note)}</div>')
        parts.append(f'<div class="lines">{escape(chr(10).join(lines))}</div>{svg}</div>')
    parts.append(f"</div><script>{SCRIPT}</script></body></html>")
    return "".join(parts)


def write_page(replay: Replay, path: str | Path) -> Path:
    """Write the replay's page to ``path`` (its folder made if missing); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page_html(replay), encoding="utf-8")
    return path


def _strip(replay: Replay) -> str:
    """The strip under the slider: the repeat's cycle shaded and its two equal positions marked."""
    if replay.repeat is None or replay.steps == 0:
        return '<div id="strip"></div>'
    first, second = replay.repeat
    left, right = 100 * first / replay.steps, 100 * second / replay.steps
    return (f'<div id="strip" title="the cycle: steps {first} to {second} repeat a position">'
            f'<div class="cycle" style="left:{left:.3f}%;width:{right - left:.3f}%"></div>'
            f'<div class="equal" style="left:{left:.3f}%"></div><div class="equal" style="left:{right:.3f}%"></div>'
            "</div>")


def _cycle_class(replay: Replay, step: int) -> tuple[str, str]:
    """A frame's class and note: one of the two equal positions, a step of the cycle between them, or neither."""
    if replay.repeat is None:
        return "", ""
    first, second = replay.repeat
    if step in (first, second):
        other = second if step == first else first
        return " equal", f"equal positions: step {step} is the position of step {other}"
    if first < step < second:
        return " cycle", f"in the cycle: steps {first} to {second} come back to the same position"
    return "", ""
