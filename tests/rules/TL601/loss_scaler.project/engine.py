# torchlint-test: select=TL601
# No DDP here: main.py wraps the model. The scaler is a parameter whose class main.py builds.


def train_one_epoch(model, loader, optimizer, loss_scaler, args):
    accum_iter = args.accum_iter
    for step, (x, y) in enumerate(loader):
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean() / accum_iter
        loss_scaler(loss, optimizer, clip_grad=None, update_grad=(step + 1) % accum_iter == 0)  # error: [TL601]
        if (step + 1) % accum_iter == 0:
            optimizer.zero_grad()


def train_every_step(model, loader, optimizer, always, scaler, sometimes, args):
    for step, (x, y) in enumerate(loader):
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        # A helper that steps on every call, and a guard argument that is true on every step.
        always(loss, optimizer, update_grad=(step + 1) % args.accum_iter == 0)
        scaler(loss, optimizer, update_grad=True)
        scaler(loss, optimizer, update_grad=step % 1 == 0)
        # Its backward runs only when the step does.
        sometimes(loss, optimizer, update_grad=(step + 1) % args.accum_iter == 0)
