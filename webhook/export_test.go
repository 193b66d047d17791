package webhook

// RangeOf is rangeOf, for the tests of the refusal's message.
var RangeOf = rangeOf
