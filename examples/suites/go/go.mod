module example.com/suite

go 1.19
