package main

// What the end-to-end tests (package main_test) read of the command table.

// CommandNames returns the name of every command that runs ("rule add"),
// groups left out.
func CommandNames() []string {
	var out []string
	for _, c := range commands {
		if c.run != nil {
			out = append(out, c.name)
		}
	}
	return out
}

// CommandNeedsDB reports whether the command named name cannot run through
// the management API (needsDB).
func CommandNeedsDB(name string) bool {
	c := findCommand(name)
	return c != nil && c.needsDB
}

// SendNoWebhooks keeps a serve run by m from sending the webhooks' outbox.
func (m *Main) SendNoWebhooks() { m.sendsNoWebhooks = true }
