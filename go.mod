module redirects

go 1.26
