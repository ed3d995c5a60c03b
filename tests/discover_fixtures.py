"""API answers in each publisher's documented format, served on 127.0.0.1 for the discover tests.

Modelled on the documented examples: arXiv's API user manual (an Atom 1.0 feed with opensearch
and arxiv: extension elements; ids `http://arxiv.org/abs/<id>v<n>`), GitHub's REST reference
(`GET /orgs/{org}/repos`, `GET /repos/{o}/{r}/git/trees/{ref}?recursive=1`, `GET /repos/{o}/{r}/commits`),
RSS 2.0 (`channel/item` with RFC 822 `pubDate`) and Atom 1.0 blog feeds. No test touches the internet.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SINCE = "2026-11-15"

ARXIV_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
      xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query?search_query%3Dcat%3Acs.CL&amp;start=0&amp;max_results=50" rel="self"
        type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=cat:cs.CL&amp;id_list=&amp;start=0&amp;max_results=50</title>
  <id>http://arxiv.org/api/4dOzbA2zC0xWtYqGSDmY5vV8nFw</id>
  <updated>2026-11-30T00:00:00-05:00</updated>
  <opensearch:totalResults>5</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>50</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/2611.04321v1</id>
    <updated>2026-11-20T17:59:58Z</updated>
    <published>2026-11-20T17:59:58Z</published>
    <title>Kimi K3.5: Scaling Agentic
      Intelligence</title>
    <summary>  We present Kimi K3.5, a mixture-of-experts model trained with large-scale agentic RL. </summary>
    <author><name>Kimi Team</name></author>
    <arxiv:comment>42 pages</arxiv:comment>
    <link href="http://arxiv.org/abs/2611.04321v1" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2611.04321v1" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2505.09388v3</id>
    <updated>2026-11-25T08:00:00Z</updated>
    <published>2025-05-14T17:31:24Z</published>
    <title>Qwen3 Technical Report</title>
    <summary>In this work, we present Qwen3, the latest version of the Qwen model family.</summary>
    <author><name>An Yang</name></author>
    <link href="http://arxiv.org/abs/2505.09388v3" rel="alternate" type="text/html"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2611.05555v1</id>
    <updated>2026-11-21T10:00:00Z</updated>
    <published>2026-11-21T10:00:00Z</published>
    <title>EXAONE 5.0 Technical Report</title>
    <summary>This technical report introduces EXAONE 5.0, developed by LG AI Research.</summary>
    <author><name>LG AI Research</name></author>
    <link href="http://arxiv.org/abs/2611.05555v1" rel="alternate" type="text/html"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2611.06666v1</id>
    <updated>2026-11-22T10:00:00Z</updated>
    <published>2026-11-22T10:00:00Z</published>
    <title>A Survey of Tokenizers for Low-Resource Languages</title>
    <summary>We compare tokenizers; a baseline uses a Llama-style vocabulary.</summary>
    <author><name>A. Author</name></author>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2610.00001v1</id>
    <updated>2026-10-01T10:00:00Z</updated>
    <published>2026-10-01T10:00:00Z</published>
    <title>GLM-5 Technical Report</title>
    <summary>An older report, before the date asked for.</summary>
    <author><name>GLM Team</name></author>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"""

ARXIV_ERROR = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345v</id>
    <title>Error</title>
    <summary>incorrect id format for 1234.12345v</summary>
  </entry>
</feed>
"""

QWEN_RSS = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Qwen</title>
    <link>https://qwenlm.github.io/blog/</link>
    <description>Recent content on Qwen</description>
    <item>
      <title>Qwen3.5: Towards Native Agents</title>
      <link>https://qwenlm.github.io/blog/qwen3.5/</link>
      <pubDate>Tue, 24 Nov 2026 00:00:00 +0000</pubDate>
      <guid>https://qwenlm.github.io/blog/qwen3.5/</guid>
      <description>&lt;p&gt;We release Qwen3.5 ...&lt;/p&gt;</description>
    </item>
    <item>
      <title>Qwen3-Coder: Agentic Coding in the World</title>
      <link>https://qwenlm.github.io/blog/qwen3-coder/</link>
      <pubDate>Mon, 16 Nov 2026 00:00:00 +0000</pubDate>
      <description>Already in the reports folder.</description>
    </item>
    <item>
      <title>Team offsite photos</title>
      <link>https://qwenlm.github.io/blog/offsite/</link>
      <pubDate>Wed, 25 Nov 2026 00:00:00 +0000</pubDate>
      <description>Nothing about models.</description>
    </item>
  </channel>
</rss>
"""

GEMMA_ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Google DeepMind blog</title>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2026-11-26T12:00:00Z</updated>
  <entry>
    <title>Gemma 5 model card and technical report</title>
    <link rel="alternate" href="https://deepmind.google/blog/gemma-5/"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <published>2026-11-26T12:00:00Z</published>
    <summary>Gemma 5 is our newest open model.</summary>
  </entry>
  <entry>
    <title>Gemma 5 in javascript:</title>
    <link rel="alternate" href="javascript:alert(1)"/>
    <published>2026-11-26T12:00:00Z</published>
  </entry>
</feed>
"""

REPOS = [
    {"id": 1, "name": "Kimi-K4", "full_name": "MoonshotAI/Kimi-K4", "private": False, "fork": False, "archived": False,
     "default_branch": "main", "pushed_at": "2026-11-28T09:12:00Z", "html_url": "https://github.com/MoonshotAI/Kimi-K4"},
    {"id": 2, "name": "old-tools", "full_name": "MoonshotAI/old-tools", "private": False, "fork": False, "archived": False,
     "default_branch": "main", "pushed_at": "2025-01-02T09:12:00Z"},
    {"id": 3, "name": "forked", "full_name": "MoonshotAI/forked", "private": False, "fork": True, "archived": False,
     "default_branch": "main", "pushed_at": "2026-11-28T09:12:00Z"},
    {"id": 4, "name": "Kimi-K3", "full_name": "MoonshotAI/Kimi-K3", "private": False, "fork": False, "archived": False,
     "default_branch": "master", "pushed_at": "2026-11-29T09:12:00Z"},
]  # fmt: skip

TREE_K4 = {"sha": "9fb0", "url": "...", "truncated": False, "tree": [
    {"path": "README.md", "mode": "100644", "type": "blob", "sha": "a1", "size": 1200},
    {"path": "tech_report.pdf", "mode": "100644", "type": "blob", "sha": "a2", "size": 2000},
    {"path": "docs", "mode": "040000", "type": "tree", "sha": "a3"},
    {"path": "docs/eval_report.md", "mode": "100644", "type": "blob", "sha": "a4", "size": 300},
]}  # fmt: skip
TREE_K3 = {"sha": "9fb1", "truncated": False, "tree": [
    {"path": "K3_report.pdf", "mode": "100644", "type": "blob", "sha": "b2", "size": 2000},
]}  # fmt: skip


def commits(date: str | None) -> list[dict]:
    if date is None:
        return []
    return [{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "html_url": "https://github.com/o/r/commit/6dcb09b",
             "commit": {"author": {"name": "Monalisa", "date": date}, "committer": {"name": "Monalisa", "date": date},
                        "message": "Add the technical report"}}]  # fmt: skip


def routes(k4_pdf: bytes, k3_pdf: bytes) -> dict[str, tuple[int, bytes, str, dict[str, str]]]:
    """path (+ '?path=' for commit lists) -> (status, body, content type, headers)."""
    js, xml = "application/json; charset=utf-8", "application/atom+xml"

    def c(date: str | None) -> bytes:
        return json.dumps(commits(date)).encode()

    gh = {"x-ratelimit-limit": "60", "x-ratelimit-remaining": "57", "x-ratelimit-reset": "4102444800"}
    return {
        "/arxiv/api/query": (200, ARXIV_FEED.encode(), xml, {}),
        "/gh/orgs/MoonshotAI/repos": (200, json.dumps(REPOS).encode(), js, gh),
        "/gh/repos/MoonshotAI/Kimi-K4/git/trees/main": (200, json.dumps(TREE_K4).encode(), js, gh),
        "/gh/repos/MoonshotAI/Kimi-K3/git/trees/master": (200, json.dumps(TREE_K3).encode(), js, gh),
        "/gh/repos/MoonshotAI/Kimi-K4/commits?path=tech_report.pdf": (200, c("2026-11-27T10:00:00Z"), js, gh),
        "/gh/repos/MoonshotAI/Kimi-K4/commits?path=docs/eval_report.md": (200, c(None), js, gh),
        "/gh/repos/MoonshotAI/Kimi-K3/commits?path=K3_report.pdf": (200, c("2026-11-29T10:00:00Z"), js, gh),
        "/raw/MoonshotAI/Kimi-K4/main/tech_report.pdf": (200, k4_pdf, "application/pdf", {}),
        "/raw/MoonshotAI/Kimi-K3/master/K3_report.pdf": (200, k3_pdf, "application/pdf", {}),
        "/feeds/qwen.xml": (200, QWEN_RSS.encode(), "application/rss+xml", {}),
        "/feeds/gdm.xml": (200, GEMMA_ATOM.encode(), "application/atom+xml", {}),
    }  # fmt: skip


class ApiServer:
    def __init__(self, httpd: ThreadingHTTPServer):
        self.httpd = httpd
        self.hits: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.queries: list[str] = []

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@contextmanager
def serve_api(table: dict[str, tuple[int, bytes, str, dict[str, str]]], sequences: dict | None = None) -> Iterator[ApiServer]:
    """Serve `table` on 127.0.0.1; `sequences[path]` is a list of answers given in turn before the table's."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    httpd.daemon_threads = True
    state = ApiServer(httpd)
    seq = {k: list(v) for k, v in (sequences or {}).items()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            state.hits[parts.path] += 1
            state.headers.append(dict(self.headers.items()))
            state.queries.append(parts.query)
            q = parse_qs(parts.query)
            key = parts.path + (f"?path={q['path'][0]}" if "path" in q else "")
            if seq.get(key):
                answer = seq[key].pop(0)
            else:
                answer = table.get(key, (404, b'{"message": "Not Found"}', "application/json", {}))
            status, body, ctype, headers = answer
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

    httpd.RequestHandlerClass = Handler
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def watch_yaml(base: str, feeds: bool = True) -> str:
    """A watch list whose endpoints are the local server (no pauses, so the tests are quick)."""
    qwen_feeds = f"[{base}/feeds/qwen.xml]" if feeds else "[]"
    gdm_feeds = f"[{base}/feeds/gdm.xml]" if feeds else "[]"
    return f"""version: 1
arxiv: {{categories: [cs.CL, cs.LG], phrases: [technical report], max_results: 50}}
github: {{token_env: FRL_TEST_GITHUB_TOKEN, files: ["*.pdf", "*report*.md"], max_repos: 10, max_commits: 10}}
api:
  arxiv: {base}/arxiv/api/query
  github: {base}/gh
  github_raw: {base}/raw
  min_interval: 0
  arxiv_interval: 0
  max_wait: 5
  timeout: 5
labs:
  - {{name: Alibaba, country: China, models: [Qwen], feeds: {qwen_feeds}}}
  - {{name: Moonshot AI, country: China, models: [Kimi], github: [MoonshotAI]}}
  - {{name: LG AI Research, country: South Korea, models: [EXAONE]}}
  - {{name: Google DeepMind, models: [Gemma], feeds: {gdm_feeds}}}
  - {{name: Zhipu AI, models: [GLM]}}
"""
