package proc

// StopSignals are the stop_signal values svc-ctl accepts on Windows: only
// SIGBREAK (CTRL_BREAK to the service's console process group); without
// one, the job object is terminated.
var StopSignals = []string{"SIGBREAK"}
