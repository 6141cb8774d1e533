;;; real_emacs.el --- run by real_editor.sh in `emacs --batch'  -*- lexical-binding: t; -*-
;; editors/emacs/torchlint-eglot.el and Eglot against the real server: writes the codes of the
;; buffer's Flymake diagnostics before and after deleting the `.item()' line.
(require 'eglot)
(require 'flymake)
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "TL_REPO")))
(require 'torchlint-eglot)
(setq torchlint-eglot-program (getenv "TL_SERVER"))

(defun tl-codes ()
  (let (out)
    (dolist (d (flymake-diagnostics))
      (let ((text (flymake-diagnostic-text d)))
        ;; Eglot puts the diagnostic's code in its text.
        (when (string-match "\\(TL[0-9]+\\)" text) (push (match-string 1 text) out))))
    (mapconcat #'identity (sort (delete-dups out) #'string<) " ")))

(defun tl-wait (predicate)
  (let ((deadline (+ (float-time) 15)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))))

(let ((lines nil))
  (condition-case err
      (progn
        (find-file (getenv "TL_FILE"))
        (python-mode)
        (flymake-mode 1)
        (call-interactively #'eglot)
        (tl-wait (lambda () (string-match-p "TL101" (tl-codes))))
        (push (tl-codes) lines)
        (goto-char (point-min))
        (search-forward "loss.item()")
        (delete-region (line-beginning-position) (1+ (line-end-position)))
        (tl-wait (lambda () (and (not (string-match-p "TL101" (tl-codes))) (string-match-p "TL202" (tl-codes)))))
        (push (tl-codes) lines)
        (eglot-shutdown (eglot-current-server)))
    (error (push (format "error: %s" (error-message-string err)) lines)))
  (with-temp-file (getenv "TL_RESULT")
    (insert (mapconcat #'identity (reverse lines) "\n") "\n")))
(kill-emacs 0)
;;; real_emacs.el ends here
