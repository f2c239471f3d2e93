-- guard: a deny list of 30 substrings searched with plain string.find in an ipairs loop,
-- and one regular expression, the way people write a command guard.
local re = require("re")

local banned = {
  "rm -rf /", "rm -rf ~", "rm -rf *", "mkfs", "dd if=", ":(){", "chmod -R 777 /", "chown -R",
  "> /dev/sda", "shutdown", "reboot", "halt", "poweroff", "init 0", "kill -9 1",
  "iptables -F", "ufw disable", "history -c", "crontab -r", "userdel", "passwd root",
  "visudo", "/etc/shadow", "/etc/sudoers", "nc -l", "ncat -e", "base64 -d |", "eval $(",
  "git push --force", "DROP TABLE",
}

function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local cmd = kw.args.command or ""
    for _, p in ipairs(banned) do
      if string.find(cmd, p, 1, true) then
        return { action = "block", message = "blocked: " .. p }
      end
    end
    if re.match(cmd, "curl\\s+[^|]*\\|\\s*(ba)?sh") then
      return { action = "block", message = "blocked: piping curl into a shell" }
    end
  end)
end
