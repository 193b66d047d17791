package redirects

// ConfirmName guards a destructive action on a named thing: the caller must
// type the thing's name back. It returns nil when typed is name, else an
// EINVALID error that says nothing was done. what is "project" or
// "organization"; id names the thing in the message.
func ConfirmName(what, id, name, typed string) error {
	if typed == name {
		return nil
	}
	return Errorf(EINVALID, "the name typed back, %s, is not the name of %s %s (%s): nothing was deleted", quoteShort(typed), what, id, quoteShort(name))
}
