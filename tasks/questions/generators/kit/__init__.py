"""The one helper kit of the question generators (tasks/questions/generators/ and a domain pack's): import
from here. `core` (names, moments, evidence, pools, queries), `life` (stories, histories, relations, the
profile on a day), `constraints`, `docs` (the document view), `tables` (report tables, sections) and `then` (the
value an attribute held when something else happened)."""

from tasks.questions.generators.kit.constraints import *  # noqa: F403
from tasks.questions.generators.kit.core import *  # noqa: F403
from tasks.questions.generators.kit.docs import *  # noqa: F403
from tasks.questions.generators.kit.life import *  # noqa: F403
from tasks.questions.generators.kit.tables import *  # noqa: F403
from tasks.questions.generators.kit.then import *  # noqa: F403
