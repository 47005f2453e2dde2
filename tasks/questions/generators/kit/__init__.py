"""The one helper kit of the question generators (tasks/questions/generators/ and a domain pack's): import
from here. `core` (names, moments, evidence, pools, queries), `life` (stories, histories, relations, the
profile on a day), `constraints`, `docs` (the document view) and `tables` (report tables, sections)."""

from tasks.questions.generators.kit.constraints import *  # noqa: F403
from tasks.questions.generators.kit.core import *  # noqa: F403
from tasks.questions.generators.kit.docs import *  # noqa: F403
from tasks.questions.generators.kit.life import *  # noqa: F403
from tasks.questions.generators.kit.tables import *  # noqa: F403
