"""The offline rules parser: spaCy tokenizer, lookup lemmatizer and ``Matcher`` rules.

``RulesParser(strict=True).parse(text)`` returns a ``ParsedStory``. The events it emits
follow fixed conventions, which the solvers rely on:

========================================================  ==================================
sentence                                                  events
========================================================  ==================================
"Ella entered the garage." / "X and Y are wandering in    ``enter`` actors, room
the basement" / "Sally comes back" (room None)
"Ella exited the garage." / "Sally goes out for a walk"   ``exit`` actors, room (or None)
"Liam made no movements and stayed in the garage ..."     ``stay`` actors, room
"The spinach is in the green_crate."                      ``narrate`` obj, destination,
                                                          Location(obj in destination)
"Sally puts a marble in her basket." / "Anne takes the    ``move`` actors=(mover,), obj,
marble out of the basket and puts it into the box."       origin, destination, Location
"they see a box and a bag"                                one ``observe`` per container
"they find a hat in the suitcase"                         ``observe`` obj, destination,
                                                          Location(hat in suitcase)
"Xiao Li finds a box in the basement"                     ``observe`` obj=box, room
"the label on the box is a hat"                           ``label`` Contents(box contains
                                                          hat)
"X cannot see what is inside the box"                     ``narrate`` (X, "see inside", box,
                                                          negated)
"X opens the box and finds a cup"                         ``open``, then ``observe``
                                                          Contents(box contains cup)
"there is no hat in the box"                              ``narrate`` Contents, negated
"X closes the box"                                        ``close``
"Avery privately told Abigail that ..."                   ``tell`` hearers, private=True
"Avery publicly claimed that ..."                         ``tell`` hearers=(), private=False
"Aiden loves the tangerine" / "Abigail lost his watch"    ``narrate`` Trait/Value or
/ "Sally has a basket"                                    Action/Event or Identity/Relation
========================================================  ==================================

Further forms and their conventions are listed in ``frames``; pronoun, name and
room-or-container resolution in ``assemble``.
"""

from .parser import RulesParser

__all__ = ["RulesParser"]
