#!/bin/sh
# Notification: the agent waits for the user.
jq -r '"[\(.notification_type)] \(.message)"' >> .claude/notifications.log
