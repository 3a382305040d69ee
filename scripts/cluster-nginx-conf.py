#!/usr/bin/env python3
"""Fills the nginx template deploy/nginx/nginx.conf for `make cluster-hosts`.

    cluster-nginx-conf.py TEMPLATE OUTPUT LISTEN UPSTREAM_LINES USER_LINE [--no-cache] [--retry-silent-hosts]

Replaces @LISTEN@, @UPSTREAMS@ and @USER@ outside comments (as scripts/cluster-demo.sh does).
With --no-cache the front keeps no result cache of its own (`proxy_cache webimage;` becomes
`proxy_cache off;`): every request reaches a service host, so what the cluster run measures is
the hosts and their shared result store, not nginx's disk. Fails when the template no longer has
the line it replaces.

With --retry-silent-hosts, `proxy_next_upstream_timeout 30s;` becomes `proxy_next_upstream_timeout
0;` (no limit; `proxy_next_upstream_tries` still bounds the tries): a request already sent to a
host that then goes silent (its link down, no reset ever comes) fails only by
`proxy_read_timeout` (60 s), after the template's 30 s retry window, so it would be a 504;
without the limit it is retried on the next host.
"""
import sys

src, dst, listen, upstreams, user = sys.argv[1:6]
no_cache = "--no-cache" in sys.argv[6:]
retry_silent = "--retry-silent-hosts" in sys.argv[6:]
out = []
replaced = 0
retry_replaced = 0
for line in open(src, encoding="utf-8").read().splitlines():
    if not line.lstrip().startswith("#"):  # the header comment names the placeholders too
        line = line.replace("@LISTEN@", listen).replace("@UPSTREAMS@", upstreams.rstrip("\n")).replace("@USER@", user)
        if no_cache and line.strip() == "proxy_cache webimage;":
            line = line.replace("proxy_cache webimage;", "proxy_cache off;")
            replaced += 1
        if retry_silent and line.strip() == "proxy_next_upstream_timeout 30s;":
            line = line.replace("30s;", "0;")
            retry_replaced += 1
    out.append(line)
if no_cache and replaced != 1:
    sys.exit("cluster-nginx-conf: the template has no single `proxy_cache webimage;` line to turn off")
if retry_silent and retry_replaced != 1:
    sys.exit("cluster-nginx-conf: the template has no single `proxy_next_upstream_timeout 30s;` line to lift")
with open(dst, "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
