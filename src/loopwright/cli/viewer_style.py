"""The exported page's stylesheet, inlined so the file stands alone."""

PAGE_STYLE = """
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --ok: #15803d;
  --err: #b91c1c; --bg-soft: rgba(127,127,127,.08); }
body { font: 14px/1.45 system-ui, sans-serif; max-width: 980px; margin: 2em auto;
  padding: 0 1em; }
h1 { font-size: 1.3em; word-break: break-all; } h2 { font-size: 1.1em; margin-top: 1.6em; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.summary dt { color: var(--muted); } dl.summary dd { margin: 0; }
svg.usage-chart { width: 100%; height: auto; }
svg .axis { font: 11px system-ui, sans-serif; fill: currentColor; opacity: .75; }
svg .bar:hover rect { opacity: .75; }
ol.timeline { list-style: none; padding: 0; }
li.item { border-left: 3px solid var(--line); padding: .3em .8em; margin: .5em 0;
  position: relative; }
li.user { border-color: #0072B2; } li.assistant { border-color: #009E73; }
li.result { border-color: #E69F00; background: var(--bg-soft); }
li.system, li.compact { border-color: var(--muted); font-size: .92em; }
li.subagent { margin-left: 2em; }
li time { float: right; color: var(--muted); font-size: .85em; }
.who { font-weight: 600; } .meta { color: var(--muted); font-weight: normal; }
.tag { font-size: .75em; border: 1px solid var(--muted); border-radius: 3px;
  padding: 0 .3em; margin-right: .5em; color: var(--muted); }
pre { white-space: pre-wrap; word-break: break-word; margin: .3em 0;
  font: 12.5px/1.4 ui-monospace, monospace; }
pre.text { font: inherit; }
details { margin: .3em 0; } summary { cursor: pointer; }
details.tool { border: 1px solid var(--line); border-radius: 4px; padding: .2em .5em; }
details.tool pre { background: var(--bg-soft); padding: .4em; border-radius: 3px;
  max-height: 28em; overflow: auto; }
.label { color: var(--muted); font-size: .85em; margin-top: .3em; }
.status { font-size: .8em; padding: 0 .4em; border-radius: 3px; color: white; }
.status.ok { background: var(--ok); } .status.error { background: var(--err); }
.status.pending { background: var(--muted); }
pre.tool-result.error { border-left: 3px solid var(--err); }
ul.errors { color: var(--err); }
"""
