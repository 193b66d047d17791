package redirects

import "context"

// Operation is an operation of the service layer declared as a value
// (api.Op) rather than as a method of an area's interface: its route is
// its name. Its implementation is registered once in the service layer
// (service.Implement), and the management API's client calls its route;
// a new operation of this kind is its declaration, its implementation and
// its command, and no interface or client method.
type Operation interface {
	// MethodPath returns the operation's HTTP method and its path under
	// /manage/v1/ ({project} its one path value), unique to it.
	MethodPath() (method, path string)
}

// OpService makes the operations declared as values. The local service
// runs the implementation registered for op; the management API's client
// calls op's route. Callers go through the op's typed method (api.Op.Do),
// which gives in and out the op's types.
type OpService interface {
	// RunOp makes op for project with in (the op's input) and stores its
	// answer in out (a pointer to the op's answer). Errors: those of the
	// operation, as any method of the service layer's.
	RunOp(ctx context.Context, op Operation, project string, in, out any) error
}
