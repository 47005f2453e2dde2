"""The rule-built wordings SessionWriter falls back on when every model wording of a turn failed its checks
(tasks/dialogue/session.py): plain, fact-free and always accepted."""

FALLBACK_ASKS = {
    "information_sharing": "I just wanted to tell you.",
    "advice_seeking": "What would you suggest?",
    "status_update": "Just keeping you posted.",
    "scheduling": "Can you help me plan around it?",
    "attachment_consultation": "Could you help me make sense of it?",
}
FALLBACK_FOLLOWUP = "Could you say a bit more about that?"
FALLBACK_REPLY = (
    "Thank you for telling me.", "That sounds like a lot to think about.",
    "It may help to write down the next small step and when you want to take it.",
    "Keeping a short note of how things go can make the next decision easier.",
    "It is fine to take this one step at a time.", "I am happy to help you think it through.",
    "If anything changes, tell me and we can adjust the plan together.",
    "Would you like to go through the options together?",
)
