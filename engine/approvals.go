package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
)

// Origin is the chat a call comes from: the platform, the chat and the user. An approval
// request carries it, so the host knows where to ask and which reply answers.
type Origin struct {
	Platform, ChatID, UserID string
}

type originKey struct{}

// WithOrigin returns ctx carrying o: the calls made with it (DecideTool, RunTool) put o in
// their approval requests. gateway.Turn does this for every call of a turn.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

func originOf(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	return o
}

// ApprovalRequest is a question about one tool call, put to a person when a pre_tool_call
// hook answered ask and no pre_approval_request hook answered it. It is the one kind of
// approval: the approval hooks see it as an approval of Command (the call), described by
// the hook's message, with pattern_key "hook:<name>".
type ApprovalRequest struct {
	ID        string            // names the request in Engine.Delivered and Engine.Answer; unique in the engine, not a secret: a host that lets people answer by id checks who answers (gateway.Gateway.Answer answers for the asking user only)
	Code      string            // a short code naming the request, never given twice by one engine: put it in the question, so that an answer can name it ("yes 7")
	Call      hookspec.ToolCall // with the arguments the tool would run with
	Message   string            // the question, as the hook put it
	Hook      string            // the hook that asked
	Origin    Origin            // the chat the call came from (WithOrigin); zero outside a chat
	Delivered bool              // in Pending: the host said the question reached the person (Engine.Delivered)
}

// ErrAnswerLater is what Options.Approve returns when it sent the question and the answer
// will come later, through Engine.Answer.
var ErrAnswerLater = errors.New("engine: the answer comes later, through Engine.Answer")

// ErrNoSuchApproval is Answer's error for an id that is not waiting for an answer (never
// asked, already answered, or given up on).
var ErrNoSuchApproval = errors.New("engine: no approval with that id is waiting for an answer")

// pendingAsks are the approval requests waiting for Answer.
type pendingAsks struct {
	mu      sync.Mutex
	ids     uint64 // the last request id given
	next    uint64 // the last waiting request's seq
	waiting map[string]*pendingAsk
}

type pendingAsk struct {
	req       ApprovalRequest
	seq       uint64    // the order it was asked in
	answer    chan bool // buffered: Answer never blocks
	delivered bool      // Engine.Delivered was called
}

func (p *pendingAsks) add(req ApprovalRequest) *pendingAsk {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.waiting = map[string]*pendingAsk{}
	}
	p.next++
	a := &pendingAsk{req: req, seq: p.next, answer: make(chan bool, 1)}
	p.waiting[req.ID] = a
	return a
}

func (p *pendingAsks) remove(id string) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// newID gives a request its id and its code.
func (p *pendingAsks) newID() (id, code string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids++
	code = strconv.FormatUint(p.ids, 10)
	return "approval-" + code, code
}

// Delivered records that the question of the approval request id, which Options.Approve
// left for later, reached the person: a host calls it once its message is delivered (the
// platform accepted it). Until then Pending lists the request as not Delivered, and
// gateway.Gateway.Answer takes no message for its answer: a "yes" sent before the question
// arrived answers nothing. It is ErrNoSuchApproval when no call waits for id.
func (e *Engine) Delivered(id string) error {
	e.asks.mu.Lock()
	defer e.asks.mu.Unlock()
	a := e.asks.waiting[id]
	if a == nil {
		return ErrNoSuchApproval
	}
	a.delivered = true
	return nil
}

// Answer answers the approval request id that Options.Approve left for later (it returned
// ErrAnswerLater): allow lets the call run, !allow blocks it. It never blocks; it is
// ErrNoSuchApproval when no call waits for id (answered already, timed out, cancelled).
// An answer given by id is tied to its question (a button on the question's message
// carries the id); a host reading answers from text uses gateway.Gateway.Answer, which
// takes only the answers to delivered questions.
func (e *Engine) Answer(id string, allow bool) error {
	e.asks.mu.Lock()
	a := e.asks.waiting[id]
	delete(e.asks.waiting, id)
	e.asks.mu.Unlock()
	if a == nil {
		return ErrNoSuchApproval
	}
	a.answer <- allow
	return nil
}

// Pending lists the approval requests waiting for Answer, oldest first.
func (e *Engine) Pending() []ApprovalRequest {
	e.asks.mu.Lock()
	defer e.asks.mu.Unlock()
	waiting := slices.SortedFunc(maps.Values(e.asks.waiting), func(a, b *pendingAsk) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]ApprovalRequest, len(waiting))
	for i, a := range waiting {
		out[i] = a.req
		out[i].Delivered = a.delivered
	}
	return out
}

// ask decides a hook's ask: pre_approval_request's hooks first (one that answers decides,
// and no person is asked), then Options.Approve, within ApproveTimeout; then
// post_approval_response with the choice. Anything but a yes blocks the call, saying why.
func (e *Engine) ask(ctx context.Context, req ApprovalRequest, source string) (bool, *Block) {
	blocked := func(why string) (bool, *Block) {
		return false, &Block{Message: fmt.Sprintf("blocked: %s asked for approval (%s) and %s", req.Hook, req.Message, why), Source: source, Hook: req.Hook}
	}
	req.ID, req.Code = e.asks.newID()
	req.Origin = originOf(ctx)
	approval := approvalOf(req)
	if d := e.PreApprovalRequest(ctx, approval); d.Answered {
		approval.Choice = "deny"
		if d.Allow {
			approval.Choice = "once"
			if d.Remember {
				approval.Choice = "always"
			}
		}
		if d.Allow && d.Args != nil && !reflect.DeepEqual(d.Args, req.Call.Args) {
			// An approval of other arguments is not an approval of these, and an ask cannot
			// take new ones past the guards: the call does not run.
			approval.Choice = "deny"
			e.PostApprovalResponse(ctx, approval)
			return blocked(fmt.Sprintf("%s allowed other arguments, which an approval cannot give a call a hook asked about (modify it in pre_tool_call instead)", d.Hook))
		}
		e.PostApprovalResponse(ctx, approval)
		if !d.Allow {
			return blocked(fmt.Sprintf("%s said no: %s", d.Hook, d.Message))
		}
		return true, nil
	}
	ok, why := e.askPerson(ctx, req)
	approval.Choice = "deny"
	switch {
	case ok:
		approval.Choice = "once"
	case strings.HasPrefix(why, errNoAnswer):
		approval.Choice = "timeout"
	}
	e.PostApprovalResponse(ctx, approval)
	if !ok {
		return blocked(why)
	}
	return true, nil
}

const errNoAnswer = "no answer came within"

// askPerson puts req to Options.Approve and waits for its answer, now or through Answer.
func (e *Engine) askPerson(ctx context.Context, req ApprovalRequest) (bool, string) {
	if e.opts.Approve == nil {
		return false, "no approver is configured"
	}
	timeout := e.opts.ApproveTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	later := e.asks.add(req) // registered first: an answer may come before Approve returns
	defer e.asks.remove(req.ID)
	type answer struct {
		ok  bool
		err error
	}
	answered := make(chan answer, 1)
	go func() { // an approver that ignores its context must not hold the call past the bound
		defer func() {
			if p := recover(); p != nil {
				answered <- answer{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		ok, err := e.opts.Approve(actx, req)
		answered <- answer{ok, err}
	}()
	for {
		select {
		case a := <-answered:
			switch {
			case errors.Is(a.err, ErrAnswerLater):
				answered = nil // wait for Answer
				continue
			case a.err != nil && ctx.Err() != nil:
				// The approver gave up because the call was cancelled: said as the
				// cancellation it is, whichever of the two this select saw first.
				return false, "the call was cancelled before an answer came"
			case a.err != nil:
				return false, "the approver failed: " + a.err.Error()
			case !a.ok:
				return false, "the answer was no"
			}
			return true, ""
		case ok := <-later.answer:
			if !ok {
				return false, "the answer was no"
			}
			return true, ""
		case <-e.stop.Done():
			return false, "the engine was closed before an answer came"
		case <-actx.Done():
			if ctx.Err() != nil {
				return false, "the call was cancelled before an answer came"
			}
			return false, fmt.Sprintf("%s %s", errNoAnswer, timeout)
		}
	}
}

// approvalOf is req as the approval hooks see it.
func approvalOf(req ApprovalRequest) hookspec.Approval {
	command, _ := req.Call.Args["command"].(string)
	if command == "" {
		args, _ := json.Marshal(req.Call.Args)
		command = req.Call.Name + " " + string(args)
	}
	surface := "cli"
	if req.Origin.Platform != "" && req.Origin.Platform != "cli" {
		surface = "gateway"
	}
	key := "hook:" + req.Hook
	return hookspec.Approval{Command: command, Description: req.Message, PatternKey: key, PatternKeys: []string{key},
		SessionKey: req.Call.SessionID, Surface: surface}
}
