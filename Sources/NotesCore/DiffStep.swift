/// One line of an edit script: kept (old index, new index), removed (old), added (new).
enum DiffStep { case keep(Int, Int), remove(Int), add(Int) }
