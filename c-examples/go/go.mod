module example.com/ppg

go 1.19
