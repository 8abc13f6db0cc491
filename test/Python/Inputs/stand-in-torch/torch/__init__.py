"""A stand-in for torch whose C++ extensions compile without torch's headers
(so they fail): what setup.py sees where torch imports but spio._autograd
cannot build."""
