# The Go module: dist/ppg-go-V.tar.gz, one folder ppg-go-V/ that is the module root
# (go.mod at its top, module github.com/ppg-search/ppg/go), the tracked files of go/ as
# they are in the working tree. It holds no C: the package finds ppg.h and libppg
# through `#cgo pkg-config: ppg`, i.e. the library installed from the C archive.
set -euo pipefail

name=ppg-go-$PPG_VERSION
stage=$PPG_ROOT/target/dist-go
rm -rf "$stage"
mkdir -p "$stage/$name"
git ls-files -z go | while IFS= read -r -d '' file; do
    cp "$file" "$stage/$name/${file#go/}"
done
[[ -f $stage/$name/go.mod ]] || { echo "50-go: go/go.mod is not tracked" >&2; exit 1; }

# The same bytes from the same files: sorted names, no owners, the last commit's time.
tar --sort=name --owner=0 --group=0 --numeric-owner --format=gnu \
    --mtime="@$(git log -1 --format=%ct)" -C "$stage" -cf - "$name" |
    gzip -n >"$PPG_DIST/.$name.tar.gz.tmp"
mv "$PPG_DIST/.$name.tar.gz.tmp" "$PPG_DIST/$name.tar.gz"
rm -rf "$stage"
