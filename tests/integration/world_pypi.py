#!/usr/bin/python3
# SPDX-License-Identifier: ISC
# Builds a tiny pure-Python wheel and publishes it in a PEP 503 simple index
# laid out as static files, for the integration world's pypi.org and
# files.pythonhosted.org origins. It owns the wheel format (PEP 427) and the
# index pages; serving them over HTTPS is world.sh's (nginx's) business.
#
#   world_pypi.py --simple-root DIR --files-root DIR --files-url URL NAME VER
#
# Writes FILES_ROOT/packages/XX/YY/<dist>-<ver>-py3-none-any.whl (XX/YY from
# the sha256, like the real host), SIMPLE_ROOT/simple/<project>/index.html
# linking to FILES_URL/packages/... with "#sha256=", and regenerates
# SIMPLE_ROOT/simple/index.html listing every project. Prints one line:
#   <wheel path> <sha256 hex> <wheel URL>
# The wheel is byte-for-byte reproducible (fixed timestamps and order).

import argparse
import base64
import hashlib
import html
import io
import os
import re
import sys
import zipfile


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def build_wheel(name, version):
    dist = re.sub(r"[-_.]+", "_", name).lower()
    info = "%s-%s.dist-info" % (dist, version)
    files = [
        ("%s/__init__.py" % dist,
         '"""egressd integration test probe."""\nVERSION = "%s"\n' % version),
        ("%s/METADATA" % info,
         "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
         "Summary: egressd integration test probe\n" % (name, version)),
        ("%s/WHEEL" % info,
         "Wheel-Version: 1.0\nGenerator: egressd-world\n"
         "Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join("%s,%s,%d\n" % (p, record_hash(d.encode()),
                                      len(d.encode())) for p, d in files)
    record += "%s/RECORD,,\n" % info
    files.append(("%s/RECORD" % info, record))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            zi = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return "%s-%s-py3-none-any.whl" % (dist, version), buf.getvalue()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def page(title, links):
    body = "".join('    <a href="%s">%s</a><br/>\n' %
                   (html.escape(href), html.escape(text))
                   for href, text in links)
    return ("<!DOCTYPE html>\n<html>\n  <head>\n"
            '    <meta name="pypi:repository-version" content="1.0">\n'
            "    <title>%s</title>\n  </head>\n  <body>\n%s  </body>\n"
            "</html>\n" % (html.escape(title), body)).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simple-root", required=True)
    ap.add_argument("--files-root", required=True)
    ap.add_argument("--files-url", required=True)
    ap.add_argument("name")
    ap.add_argument("version")
    a = ap.parse_args()
    project = re.sub(r"[-_.]+", "-", a.name).lower()  # PEP 503 normalization
    fname, data = build_wheel(a.name, a.version)
    sha = hashlib.sha256(data).hexdigest()
    rel = "packages/%s/%s/%s" % (sha[:2], sha[2:4], fname)
    wheel_path = os.path.join(a.files_root, rel)
    write(wheel_path, data)
    url = "%s/%s" % (a.files_url.rstrip("/"), rel)
    simple = os.path.join(a.simple_root, "simple")
    write(os.path.join(simple, project, "index.html"),
          page("Links for " + project, [(url + "#sha256=" + sha, fname)]))
    projects = sorted(d for d in os.listdir(simple)
                      if os.path.isdir(os.path.join(simple, d)))
    write(os.path.join(simple, "index.html"),
          page("Simple index", [("/simple/%s/" % p, p) for p in projects]))
    print(wheel_path, sha, url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
