#!/bin/sh
# fetch.sh DEST [MIRRORS]: gathers the real course notebooks MANIFEST.tsv
# names (repository, commit, path, licence) into DEST/OWNER/NAME/PATH, for
# TestNotebookCorpus (LESSONS_CORPUS=DEST) and gpu-sample.sh. Their
# licences (or the lack of one) do not let this repository keep them, so
# they are fetched at the commit named, from a local mirror where MIRRORS
# holds OWNER+NAME/repo (a bare git repository), else from GitHub.
#
#   bench/notebooks/corpus/fetch.sh /tmp/corpus
#   LESSONS_CORPUS=/tmp/corpus go test ./cmd/lessons -run TestNotebookCorpus -v
set -eu
dest=${1:?usage: fetch.sh DEST [MIRRORS]}
mirrors=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
n=0 failed=0
tail -n +2 "$here/MANIFEST.tsv" | while IFS="$(printf '\t')" read -r repo commit path licence; do
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
