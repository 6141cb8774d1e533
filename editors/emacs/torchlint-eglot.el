;;; torchlint-eglot.el --- torchlint's language server for Eglot  -*- lexical-binding: t; -*-

;; Copyright (c) torchlint authors
;; SPDX-License-Identifier: MIT
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, tools

;;; Commentary:

;; Runs `torchlint server' for `python-mode' and `python-ts-mode' buffers through Eglot, with the
;; settings below as its initializationOptions, and sends them again as
;; workspace/didChangeConfiguration (params.settings.torchlint) once the server is up and whenever
;; they change through Customize or `torchlint-eglot-set-trace'.
;;
;;   (require 'torchlint-eglot)
;;   (add-hook 'python-mode-hook #'eglot-ensure)
;;
;; Eglot runs one server for a buffer: loading this file puts torchlint in front of the Python
;; servers Eglot knows (pylsp, pyright, ...).  It needs only the API of Eglot 1.9 and newer.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'project)
(require 'subr-x)

(defgroup torchlint-eglot nil
  "The torchlint language server in Eglot."
  :group 'eglot
  :prefix "torchlint-eglot-")

(defvar torchlint-eglot--servers (make-hash-table :test #'eq :weakness 'key)
  "The torchlint servers Eglot started: server -> its project root.")

(defun torchlint-eglot--set (symbol value)
  "Set SYMBOL to VALUE, then tell the running servers."
  (set-default symbol value)
  (when (fboundp 'torchlint-eglot-send-settings)
    (torchlint-eglot-send-settings)))

(defcustom torchlint-eglot-program "torchlint"
  "The torchlint executable, a name on `exec-path' or a file.
Eglot runs it as PROGRAM server."
  :type 'string)

(defcustom torchlint-eglot-select nil
  "Rule codes or prefixes to report, such as (\"TL1\").
Nil: as the config file says, `[tool.torchlint]' in pyproject.toml
or torchlint.toml."
  :type '(repeat string)
  :set #'torchlint-eglot--set)

(defcustom torchlint-eglot-ignore nil
  "Rule codes or prefixes not to report."
  :type '(repeat string)
  :set #'torchlint-eglot--set)

(defcustom torchlint-eglot-target-torch nil
  "The PyTorch version the advice is for, such as \"2.4\".
Nil: the config's target-torch, or the torch pin of the project."
  :type '(choice (const :tag "From the project" nil) string)
  :set #'torchlint-eglot--set)

(defcustom torchlint-eglot-unsafe-fixes nil
  "Non-nil: also offer the fixes that may change behaviour."
  :type 'boolean
  :set #'torchlint-eglot--set)

(defcustom torchlint-eglot-trace nil
  "A Kineto profiler trace (.json, .json.gz) or a folder of them, or nil.
The server checks each finding against it.  A relative name is taken
from the project root."
  :type '(choice (const :tag "None" nil) file)
  :set #'torchlint-eglot--set)

(defun torchlint-eglot--root ()
  "The root of the current buffer's project, else its directory."
  (let ((project (project-current)))
    (expand-file-name (if project (project-root project) default-directory))))

(defun torchlint-eglot-settings (&optional root)
  "The settings as the server reads them, for a project at ROOT.
Empty settings are left out, so the config files decide them; the trace
is made absolute from ROOT."
  (let ((root (or root (torchlint-eglot--root))))
    (append
     (when torchlint-eglot-select
       (list :select (vconcat torchlint-eglot-select)))
     (when torchlint-eglot-ignore
       (list :ignore (vconcat torchlint-eglot-ignore)))
     (when (and torchlint-eglot-target-torch (not (string-empty-p torchlint-eglot-target-torch)))
       (list :targetTorch torchlint-eglot-target-torch))
     (list :unsafeFixes (if torchlint-eglot-unsafe-fixes t :json-false))
     (when (and torchlint-eglot-trace (not (string-empty-p torchlint-eglot-trace)))
       (list :trace (expand-file-name torchlint-eglot-trace root))))))

(defun torchlint-eglot--initialization-options (server)
  "The initializationOptions for SERVER, which is also remembered here."
  (let ((root (torchlint-eglot--root)))
    (puthash server root torchlint-eglot--servers)
    (torchlint-eglot-settings root)))

(defun torchlint-eglot--contact (&optional _interactive)
  "How Eglot starts the server: `torchlint-eglot-program' server."
  (list torchlint-eglot-program "server"
        :initializationOptions #'torchlint-eglot--initialization-options))

(defun torchlint-eglot--notify (server)
  "Send SERVER the settings, at params.settings.torchlint."
  (let ((root (gethash server torchlint-eglot--servers)))
    (when (and root (jsonrpc-running-p server))
      (jsonrpc-notify server :workspace/didChangeConfiguration
                      (list :settings (list :torchlint (torchlint-eglot-settings root)))))))

(defun torchlint-eglot-send-settings ()
  "Send the settings to every running torchlint server."
  (interactive)
  (maphash (lambda (server _root) (torchlint-eglot--notify server)) torchlint-eglot--servers))

(defun torchlint-eglot-set-trace (trace)
  "Check findings against TRACE, a profiler trace file or folder; empty: stop."
  (interactive
   (list (read-file-name "Profiler trace (file or folder, empty for none): " nil "" nil)))
  (customize-set-variable 'torchlint-eglot-trace
                          (if (string-empty-p trace) nil (expand-file-name trace))))

(defun torchlint-eglot-fix-all ()
  "Apply the server's fix-all action, source.fixAll.torchlint, to this buffer."
  (interactive)
  (eglot-code-actions (point-min) (point-max) "source.fixAll.torchlint" t))

;; Eglot's own didChangeConfiguration, sent on connecting, carries `eglot-workspace-configuration',
;; which may lack a torchlint section: ours goes after it.
(add-hook 'eglot-connect-hook #'torchlint-eglot--notify t)

(dolist (mode '(python-ts-mode python-mode))
  (add-to-list 'eglot-server-programs (cons mode #'torchlint-eglot--contact)))

(provide 'torchlint-eglot)
;;; torchlint-eglot.el ends here
