"""The leaderboard site: verified results -> typed page contexts -> Jinja pages -> `mkdocs build --strict` (issue #7).

`site` runs a build (`assemble` writes the MkDocs sources, then MkDocs, then the run pages):

* results in: `stream` (one whole results file at a time, light records for the pages across
  submissions), `evidence` (coverage and pre-registration labels), `ranking` (the boards);
* page contexts (`context` types them; `pages` lists the builders): `home_page`, `leaderboard_page`,
  `submission_page`, `cell_page`, `runs` (+ `timeline`, `turns`), `reference_pages` (reported
  sources, metrics, schemas, changelog), `releases`; shared rows and charts: `cell_rows`,
  `null_results`, `chart_data`, `charts`, `tables`;
* out: `writer` (Jinja, fragments and downloads), `hooks` (MkDocs hook), `shell` (run pages in the
  theme's shell), `weight` (page weight), `citation`, `paths`, `text`, `serve`.
"""
