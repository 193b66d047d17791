package main

// profileStop ends the CPU profile a build with -tags cpuprofile started
// (cpuprofile.go); it does nothing otherwise.
var profileStop = func() {}
