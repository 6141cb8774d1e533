;;; emacs_eglot.el --- run by emacs_eglot.sh in `emacs --batch'  -*- lexical-binding: t; -*-
;; Byte-compiles and loads editors/emacs/torchlint-eglot.el, checks its eglot-server-programs entries,
;; then runs Eglot on a Python file of a project against the fake server, applies
;; `torchlint-eglot-fix-all', switches the trace with `torchlint-eglot-set-trace', shuts the server
;; down, and writes what it saw as JSON to TL_RESULT for client_checks.js.
;; Environment: TL_REPO, TL_SERVER (the fake server's command), TL_PROJECT, TL_RESULT, TL_TMP.

(require 'json)
(defvar tl-checks nil)
(defvar tl-seen nil)
(defun tl-check (ok what)
  (push `((ok . ,(if ok t :json-false)) (what . ,what)) tl-checks))

(condition-case err
    (let ((build (file-name-as-directory (expand-file-name "build" (getenv "TL_TMP"))))
          (project (getenv "TL_PROJECT")))
      (make-directory build t)
      (copy-file (expand-file-name "editors/emacs/torchlint-eglot.el" (getenv "TL_REPO")) build t)
      (let ((byte-compile-error-on-warn t))
        (tl-check (byte-compile-file (expand-file-name "torchlint-eglot.el" build))
                  "torchlint-eglot.el byte-compiles with no warning"))
      (add-to-list 'load-path build)
      (require 'torchlint-eglot)
      (tl-check (and (eq (cdr (assq 'python-mode eglot-server-programs)) 'torchlint-eglot--contact)
                     (eq (cdr (assq 'python-ts-mode eglot-server-programs)) 'torchlint-eglot--contact))
                "python-mode and python-ts-mode map to torchlint in eglot-server-programs")
      (tl-check (equal (seq-take (torchlint-eglot--contact) 2) '("torchlint" "server"))
                "the contact is (\"torchlint\" \"server\")")

      (setq torchlint-eglot-program (getenv "TL_SERVER"))
      (customize-set-variable 'torchlint-eglot-select '("TL1"))
      (customize-set-variable 'torchlint-eglot-trace "prof")
      (find-file (expand-file-name "pkg/train.py" project))
      (python-mode)
      (call-interactively #'eglot)
      (let ((server (eglot-current-server)))
        (tl-check (and server (jsonrpc-running-p server)) "Eglot connected to the server")
        (push '(opened . ["train.py"]) tl-seen)
        (accept-process-output nil 0.5)
        (torchlint-eglot-fix-all)
        (push `(first_line . ,(buffer-substring-no-properties (point-min) (line-end-position 1))) tl-seen)
        (torchlint-eglot-set-trace "runs/step.json.gz")
        (accept-process-output nil 0.5)
        (eglot-shutdown server)))
  (error (push `(error . ,(error-message-string err)) tl-seen)))

(push `(checks . ,(vconcat (reverse tl-checks))) tl-seen)
(with-temp-file (getenv "TL_RESULT")
  (insert (json-encode tl-seen)))
(kill-emacs 0)
;;; emacs_eglot.el ends here
