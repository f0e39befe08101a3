#!/bin/sh
# fetch.sh DEST [MIRRORS] [MANIFEST...]: gathers the real course notebooks
# MANIFEST.tsv and MANIFEST2.tsv name (repository, commit, path, licence;
# the second, gathered later, holds notebooks the first's fixes were not
# made against) into DEST/OWNER/NAME/PATH, for
# TestNotebookCorpus (LESSONS_CORPUS=DEST) and gpu-sample.sh. Their
# licences (or the lack of one) do not let this repository keep them, so
# they are fetched at the commit named, from a local mirror where MIRRORS
# holds OWNER+NAME/repo (a bare git repository), else from GitHub.
#
#   bench/notebooks/corpus/fetch.sh /tmp/corpus
#   bench/notebooks/corpus/fetch.sh /tmp/corpus2 "" MANIFEST2.tsv
#   LESSONS_CORPUS=/tmp/corpus go test ./cmd/lessons -run TestNotebookCorpus -v
set -eu
dest=${1:?usage: fetch.sh DEST [MIRRORS]}
mirrors=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 2 ] && shift 2 || set -- MANIFEST.tsv MANIFEST2.tsv
for manifest in "$@"; do tail -n +2 "$here/$manifest"; done | while IFS="$(printf '\t')" read -r repo commit path licence; do
	out="$dest/$repo/$path"
	mkdir -p "$(dirname "$out")"
	[ -s "$out" ] && continue
	mirror="$mirrors/$(echo "$repo" | tr / +)/repo"
	if [ -n "$mirrors" ] && [ -d "$mirror" ]; then
		git --git-dir="$mirror" show "$commit:$path" > "$out" || { echo "not in the mirror: $repo $path" >&2; rm -f "$out"; }
	else
		url="https://raw.githubusercontent.com/$repo/$commit/$(printf '%s' "$path" | sed 's/ /%20/g')"
		curl -fsSL "$url" -o "$out" || { echo "could not fetch $url" >&2; rm -f "$out"; }
	fi
done
echo "$(find "$dest" -name '*.ipynb' | wc -l) notebooks in $dest"
