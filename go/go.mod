module github.com/ppg-search/ppg/go

go 1.19
