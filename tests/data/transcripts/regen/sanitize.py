#!/usr/bin/env python3
"""sanitize.py WORK OUT: copy the transcripts written under WORK/final-*/home to OUT, rewriting the
temp paths (<run>/home/project -> /home/dev/project, <run>/home -> /home/dev, <run>/shim/bash ->
/opt/automode/shims/bash, and the Claude project slug) and nothing else; every line must still parse."""
import glob, json, os, re, sys
WORK, OUT = sys.argv[1:3]
jobs = [('final-claude', '.claude/projects/*/*.jsonl', 'claude-code.jsonl'),
        ('final-claude-tui', '.claude/projects/*/*.jsonl', 'claude-code-interactive.jsonl'),
        ('final-claude-tui', '.claude/history.jsonl', 'claude-code-history.jsonl'),
        ('final-codex', '.codex/sessions/*/*/*/*.jsonl', 'codex.jsonl'),
        ('final-codex-tui', '.codex/sessions/*/*/*/*.jsonl', 'codex-interactive.jsonl'),
        ('final-codex-tui', '.codex/history.jsonl', 'codex-history.jsonl'),
        ('final-pi', '.pi/agent/sessions/*/*.jsonl', 'pi.jsonl'),
        ('final-pi-tui', '.pi/agent/sessions/*/*.jsonl', 'pi-interactive.jsonl')]
os.makedirs(OUT, exist_ok=True)
for run, pat, name in jobs:
    D = os.path.join(WORK, run)
    (src,) = glob.glob(os.path.join(D, 'home', pat))
    data = open(src, 'rb').read()
    slug = re.sub(r'[^A-Za-z0-9]', '-', D + '/home/project')
    for a, b in [(D + '/home/project', '/home/dev/project'), (D + '/home', '/home/dev'),
                 (D + '/shim/bash', '/opt/automode/shims/bash'), (slug, '-home-dev-project'),
                 (os.path.expanduser('~/.cache/automode-e2e'), '/home/dev/.npm-global')]:
        data = data.replace(a.encode(), b.encode())
    text = data.decode()
    for bad in (WORK, slug.split('-home-project')[0], 'sk-ant', 'mock-key'):
        assert bad not in text, (name, bad)
    assert text.endswith('\n')
    for line in text.split('\n')[:-1]:
        json.loads(line)
    open(os.path.join(OUT, name), 'wb').write(data)
    print('%-30s %7d bytes %4d lines  <- ~/%s' % (name, len(data), text.count('\n'),
          os.path.relpath(src, D + '/home').replace(slug, '-home-dev-project')
          .replace((D + '/home/project').lstrip('/').replace('/', '-'), 'home-dev-project')))
