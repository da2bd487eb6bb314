"""Publishing scored runs to a Hub dataset repo and pulling them back (`avb publish`, `avb pull`).

- `layout`: where each file lives in the repo, the names allowed there, and the size caps a pull enforces;
- `board`: the one leaderboard computation of both sides (`report.leaderboard.build_leaderboard` under settings
  the card records) and `digest`: the SHA-256 of its numbers;
- `tables`: the Parquet tables derived from the result files, and the pull's check that they agree;
- `card`: the dataset card (README.md): YAML `configs:` for the tables, the `agenticvbench:` block, Reproduce;
- `publish`: stage the repo's files (or write them to a folder) and send them as one commit;
- `pull`: materialise run folders from a repo revision, treating every byte as hostile, and check the digest;
- `outputs`: which run outputs `--with-outputs` may publish (the viewer's bundle policy), and `pull --rescore`;
- `space`: `avb publish-bundle`, a static bundle to a static Space.

The card format is written down in docs/guide/publish.md.
"""
