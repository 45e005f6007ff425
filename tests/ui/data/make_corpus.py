"""Writes the fixed UI test corpus (tests/ui/data/corpus) and prints the near pairs.

Run: python tests/ui/data/make_corpus.py tests/ui/data/corpus
Families by design: letters (2 bits), weird (1 bit, hostile content and a markup file
name), shop HTML (3 bits) at k=3; the four press releases join at k>=5.
"""

import itertools
import os
import sys

from ditto_tui.core.fingerprint.pipeline import make_pipeline

p = make_pipeline()
base_release = """Harbourlight Tidewell 2.0 released

Harbourlight today announced Tidewell 2.0, the tide prediction app for small harbours.
The new version adds offline charts, a faster sync engine and support for thirty new ports.
Tidewell is free for community boat clubs and costs four euro per month for businesses.
"Our users asked for offline charts more than anything else," said Ana Duarte, the lead developer.
Tidewell 2.0 is available today for Android and iOS.
"""
docs = {}
docs["press/tidewell-2.0.txt"] = base_release
docs["press/tidewell-2.0-final.txt"] = base_release.replace(
    "thirty new ports", "thirty-two new ports"
)
docs["press/tidewell-2.0-draft.txt"] = base_release.replace(
    "four euro per month", "five euro per month"
).replace("the lead developer", "lead developer")
docs["press/tidewell-2.0-fr-notes.txt"] = base_release.replace(
    "Tidewell 2.0 is available today for Android and iOS.",
    "Tidewell 2.0 arrives next week for Android, iOS and the web, with a beta for desktop users.",
)
letter = """Dear Mr Okafor,

I am writing about the heating in flat 3, 14 Quay Street. Since the first of November the
radiators in the bedroom and the kitchen have stayed cold, and the boiler shows error E4.
I reported this by phone on 3 November and again on 10 November. Please arrange a repair
this week. I am at home every afternoon and can let an engineer in.

Kind regards,
Deepak Rao
"""
docs["letters/heating-complaint.txt"] = letter
docs["letters/heating-complaint-v2.txt"] = letter.replace(
    "first of November", "1st of November"
).replace("Kind regards", "Best regards")
html = """<html><head><title>Dragonwell green tea</title><style>p {margin:0}</style></head>
<body><h1>Dragonwell green tea</h1><p>Flat, jade-green leaves from Zhejiang with a sweet chestnut aroma.</p>
<p>Brew at 80&deg;C for two minutes. 100 g tin, 12.50 &euro;.</p><ul><li>Spring harvest</li><li>Pan-fired</li></ul></body></html>
"""
docs["shop/dragonwell.html"] = html
docs["shop/dragonwell-sale.html"] = html.replace("12.50", "9.90").replace(
    "Spring harvest", "Spring harvest, limited"
)
docs["notes/todo.txt"] = (
    "buy milk\nfix bike brake\ncall the plumber about the boiler\nrenew passport before March\n"
)
docs["notes/haiku.txt"] = "old pond —\na frog leaps in\nthe sound of water\n"
docs["recipes/lentil-soup.txt"] = (
    "Lentil soup\n\n250 g red lentils, 1 onion, 2 carrots, 1 l stock, cumin.\nFry the onion, add the rest, simmer 25 minutes, blend half.\n"
)
hostile = "Title: [bold red]not bold[/] and [link=http://x]no link[/link]\n\x1b[31mred via ANSI\x1b[0m and a bell\x07 and SOH\x01 here\n[/] stray close, [[double]] and \\[escaped]\nTab\there and a carriage\rreturn\n"
docs["weird/[bold red]markup name.txt"] = hostile
docs["weird/markup-copy.txt"] = hostile.replace("stray close", "stray closing tag")
fps = {k: p.fingerprint(v.encode()) for k, v in docs.items()}
names = list(docs)
for a, b in itertools.combinations(names, 2):
    d = (fps[a] ^ fps[b]).bit_count()
    if d <= 12:
        print(d, a, b)
if len(sys.argv) > 1:
    out = sys.argv[1]
    for name, text in docs.items():
        path = os.path.join(out, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
