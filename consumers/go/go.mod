// A program outside the repository that uses the released Go module. The suite adds
// `require github.com/ppg-search/ppg/go vV` and a `replace` to the unpacked
// dist/ppg-go-V.tar.gz; the module finds libppg through pkg-config (PKG_CONFIG_PATH).
module example.com/ppg-consumer

go 1.19
