#!/bin/sh
# UserPromptSubmit: whatever this prints on stdout is added to the prompt as context.
cat > /dev/null  # the payload: not needed here
if [ -f "$CLAUDE_PROJECT_DIR/CONVENTIONS.md" ]; then
  echo "Project conventions:"
  cat "$CLAUDE_PROJECT_DIR/CONVENTIONS.md"
fi
